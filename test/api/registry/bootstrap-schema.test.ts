/**
 * The bootstrap objects (and the local APIServices the aggregator registers) are written without the OpenAPI schema check (WriteOptions.trusted: compiling
 * the schemas cost every start more than the writes). This checks them against their schemas here
 * instead: no type error, no unknown field, no null the decoder would drop.
 */
import t from 'tap';
import { Scheme } from '../../../src/api/scheme';
import { builtinKinds } from '../../../src/api/kinds';
import { builtinBootstrapObjects } from '../../../src/api/kinds/bootstrap';
import { extensionAuthenticationConfigMap } from '../../../src/auth/authn/extension-authentication';
import { desiredLocalAPIServices } from '../../../src/aggregator/local-apiservices';
import { FeatureGates } from '../../../src/options/feature-gates';
import { definitions } from '../../../src/schema';
import { createSchemaValidator } from '../../../src/schema/validator';

const scheme = new Scheme(builtinKinds());
const validator = createSchemaValidator(definitions);

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  return Object.values(value as Record<string, unknown>).some(hasNull);
}

const kinds = builtinKinds();
const builtinGroupVersions = new Set(kinds.map((k) => (k.group ? `${k.group}/${k.version}` : k.version)));

const sets = {
  'the local APIServices': [...desiredLocalAPIServices(scheme, builtinGroupVersions).values()].map((d) => ({ object: d.object })),
  'default feature gates': builtinBootstrapObjects(),
  'every gate off that can be': builtinBootstrapObjects(new FeatureGates({})),
  'the extension authentication ConfigMap': [
    extensionAuthenticationConfigMap({
      clientCa: 'ca',
      requestHeader: { clientCa: 'ca', allowedNames: ['front-proxy'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-'] },
    }),
  ],
};

for (const [label, objects] of Object.entries(sets)) {
  t.test(`bootstrap objects pass their schema: ${label}`, async (t) => {
    t.ok(objects.length > 0);
    for (const { object } of objects) {
      const kind = scheme.byKind(String(object.apiVersion), String(object.kind));
      const what = `${object.kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;
      if (!kind) {
        t.fail(`${what}: no such kind`);
        continue;
      }
      t.same(validator.validate(kind.schemaName, object), [], `${what}: no schema problem`);
      t.same(validator.unknownFields(kind.schemaName, object), [], `${what}: no unknown field`);
      t.notOk(hasNull(object), `${what}: no null field`);
    }
  });
}
