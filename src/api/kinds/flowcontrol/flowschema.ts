/**
 * FlowSchema in flowcontrol.apiserver.k8s.io v1, v1beta3, v1beta2, v1beta1 and v1alpha1 (one
 * storage location, stored as v1): cluster-scoped, status subresource, generation bumped by spec
 * changes (kube's strategy), and kube's table with the MISSINGPL column (`?` until the APF
 * controller sets the Dangling condition).
 */
import type { KindDefinition } from '../../kind';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, objAt, str } from '../util';
import type { FlowcontrolVersion } from './flowcontrol-conversion';
import { GROUP, flowSchemaInVersion } from './flowcontrol-conversion';
import { defaultFlowSchema } from './flowcontrol-defaults';
import { validateFlowSchema, validateFlowcontrolStatus } from './flowcontrol-validation';

export function flowSchemaKind(version: FlowcontrolVersion): KindDefinition {
  return {
    group: GROUP,
    version,
    kind: 'FlowSchema',
    listKind: 'FlowSchemaList',
    resource: 'flowschemas',
    singular: 'flowschema',
    namespaced: false,
    shortNames: [],
    categories: [],
    storage: { group: GROUP, resource: 'flowschemas' },
    storageVersion: 'v1',
    fromStorage: (obj) => flowSchemaInVersion(version, obj),
    toStorage: (obj) => flowSchemaInVersion('v1', obj),
    schemaName: `io.k8s.api.flowcontrol.${version}.FlowSchema`,
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults: defaultFlowSchema,
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate: (obj) => validateFlowSchema(obj),
      validateStatus: (obj) => validateFlowcontrolStatus(obj),
    },
    table: {
      columns: [
        nameColumn(),
        column('PriorityLevel', 'string', 'the name of the priority level this schema sends requests to'),
        column('MatchingPrecedence', 'string', 'lower values match first'),
        column('DistinguisherMethod', 'string', 'how matching requests are split into flows'),
        ageColumn(),
        column('MissingPL', 'string', 'whether the named priority level is missing'),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const method = objAt(spec, 'distinguisherMethod');
        const dangling = arrAt(objAt(obj, 'status'), 'conditions').find((c) => isObj(c) && c.type === 'Dangling');
        return [
          str(obj.metadata?.name),
          str(objAt(spec, 'priorityLevelConfiguration')?.name),
          typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0,
          method ? str(method.type) : '<none>',
          age(obj, now),
          isObj(dangling) ? str(dangling.status) : '?',
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
