import t from 'tap';
import { ApiError } from '../../../src/api/errors';
import type { KubeObject } from '../../../src/api/kind';
import { applyPatch, patchContentTypes } from '../../../src/api/patch';
import { deploymentSchema } from './smp-schema';

const live = (): KubeObject => ({
  metadata: { name: 'web' },
  spec: { template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } } },
});

t.test('dispatches by type; the same body means different things', async (t) => {
  const body = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'b', image: 'z' }] } } } });
  t.same(applyPatch('merge', live(), body), { metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'b', image: 'z' }] } } } });
  t.same(applyPatch('strategic', live(), body, deploymentSchema), {
    metadata: { name: 'web' },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'z' }] } } },
  });
  t.same(applyPatch('json', live(), '[{"op":"replace","path":"/metadata/name","value":"w2"}]').metadata, { name: 'w2' });
});

t.test('strategic without a schema is refused like kube does for custom resources', async (t) => {
  try {
    applyPatch('strategic', live(), '{}');
    t.fail('expected an error');
  } catch (err) {
    t.ok(err instanceof ApiError);
    t.equal((err as ApiError).code, 400);
    t.equal((err as ApiError).message, 'strategic merge patch format is not supported');
  }
});

t.test('content types', async (t) => {
  t.equal(patchContentTypes['application/json-patch+json'], 'json');
  t.equal(patchContentTypes['application/merge-patch+json'], 'merge');
  t.equal(patchContentTypes['application/strategic-merge-patch+json'], 'strategic');
});
