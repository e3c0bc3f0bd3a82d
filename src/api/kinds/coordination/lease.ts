/**
 * coordination.k8s.io Lease in v1 and v1beta1 (one storage location, stored as v1; the versions have
 * the same fields): kube's ValidateLeaseSpec and the Holder table
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, invalid, notSupported } from '../../validation/field-errors';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { objAt, str } from '../util';

const STRATEGIES = ['OldestEmulationVersion'];

function validate(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const duration = spec.leaseDurationSeconds;
  if (duration !== undefined && duration !== null && (typeof duration !== 'number' || duration <= 0)) {
    causes.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  }
  const transitions = spec.leaseTransitions;
  if (transitions !== undefined && transitions !== null && (typeof transitions !== 'number' || transitions < 0)) {
    causes.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy !== undefined && spec.strategy !== null && !STRATEGIES.includes(str(spec.strategy))) {
    causes.push(notSupported('spec.strategy', spec.strategy, STRATEGIES));
  }
  if (spec.preferredHolder && !spec.strategy) causes.push(forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return causes;
}

export function leaseKind(version: 'v1' | 'v1beta1' = 'v1'): KindDefinition {
  return {
    group: 'coordination.k8s.io',
    version,
    kind: 'Lease',
    listKind: 'LeaseList',
    resource: 'leases',
    singular: 'lease',
    namespaced: true,
    shortNames: [],
    categories: [],
    storage: { group: 'coordination.k8s.io', resource: 'leases' },
    storageVersion: 'v1',
    schemaName: `io.k8s.api.coordination.${version}.Lease`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate },
    table: {
      columns: [nameColumn(), column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), ageColumn()],
      cells(obj, now) {
        return [str(obj.metadata?.name), str(objAt(obj, 'spec')?.holderIdentity), age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
