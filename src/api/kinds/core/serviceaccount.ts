/** core/v1 ServiceAccount */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, required } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, str } from '../util';

function validate(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  arrAt(obj, 'secrets').forEach((s, i) => {
    const name = isObj(s) ? str(s.name) : '';
    if (!name) causes.push(required(`secrets[${i}].name`, ''));
    else for (const msg of isDNS1123Subdomain(name)) causes.push(invalid(`secrets[${i}].name`, name, msg));
  });
  return causes;
}

export function serviceAccountKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    listKind: 'ServiceAccountList',
    resource: 'serviceaccounts',
    singular: 'serviceaccount',
    namespaced: true,
    shortNames: ['sa'],
    categories: [],
    storage: { group: '', resource: 'serviceaccounts' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.ServiceAccount',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate },
    // POST serviceaccounts/<name>/token with a TokenRequest (src/auth/serviceaccount/token-request.ts)
    subresources: [{
      name: 'token',
      type: 'action',
      verbs: ['create'],
      kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      bodyKinds: [{ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' }],
    }],
    table: {
      columns: [nameColumn(), column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), ageColumn()],
      cells(obj, now) {
        return [str(obj.metadata?.name), arrAt(obj, 'secrets').length, age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
