/**
 * PriorityLevelConfiguration in flowcontrol.apiserver.k8s.io v1, v1beta3, v1beta2, v1beta1 and
 * v1alpha1 (one storage location, stored as v1; flowcontrol-conversion.ts): cluster-scoped,
 * status subresource, generation bumped by spec changes, kube 1.32's table.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { objAt, str } from '../util';
import type { FlowcontrolVersion } from './flowcontrol-conversion';
import { GROUP, priorityLevelFromV1, priorityLevelToV1 } from './flowcontrol-conversion';
import { defaultPriorityLevel } from './flowcontrol-defaults';
import { validateFlowcontrolStatus, validatePriorityLevel } from './flowcontrol-validation';

const orNone = (v: unknown): unknown => (typeof v === 'number' ? v : '<none>');

export function priorityLevelConfigurationKind(version: FlowcontrolVersion): KindDefinition {
  const toV1 = (obj: KubeObject): KubeObject => priorityLevelToV1(version, obj);
  return {
    group: GROUP,
    version,
    kind: 'PriorityLevelConfiguration',
    listKind: 'PriorityLevelConfigurationList',
    resource: 'prioritylevelconfigurations',
    singular: 'prioritylevelconfiguration',
    namespaced: false,
    shortNames: [],
    categories: [],
    storage: { group: GROUP, resource: 'prioritylevelconfigurations' },
    storageVersion: 'v1',
    fromStorage: (obj) => priorityLevelFromV1(version, obj),
    toStorage: toV1,
    schemaName: `io.k8s.api.flowcontrol.${version}.PriorityLevelConfiguration`,
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults: (obj) => defaultPriorityLevel(version, obj),
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate: (obj) => validatePriorityLevel(toV1(obj), version),
      validateStatus: (obj) => validateFlowcontrolStatus(obj),
    },
    table: {
      columns: [
        nameColumn(),
        column('Type', 'string', 'Exempt or Limited'),
        column('NominalConcurrencyShares', 'string', 'the share of the server concurrency limit'),
        column('Queues', 'string', 'the number of queues'),
        column('HandSize', 'string', 'the queues each flow is dealt'),
        column('QueueLengthLimit', 'string', 'the requests one queue may hold'),
        ageColumn(),
      ],
      cells(obj, now) {
        const spec = objAt(toV1(obj), 'spec') ?? {};
        const limited = objAt(spec, 'limited');
        const queuing = objAt(objAt(limited, 'limitResponse'), 'queuing');
        return [
          str(obj.metadata?.name),
          str(spec.type),
          limited ? orNone(limited.nominalConcurrencyShares) : '<none>',
          queuing ? orNone(queuing.queues) : '<none>',
          queuing ? orNone(queuing.handSize) : '<none>',
          queuing ? orNone(queuing.queueLengthLimit) : '<none>',
          age(obj, now),
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
