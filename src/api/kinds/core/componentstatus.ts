/**
 * core/v1 ComponentStatus (deprecated in kube 1.19, still served): read-only and cluster-scoped.
 * Nothing is stored; the objects are the health checks' answers, made by withVirtualKinds
 * (src/api/virtual) from the probes the server passes in. Table: kube's printComponentStatus.
 */
import type { KindDefinition } from '../../kind';
import { column, nameColumn } from '../table-format';
import { arrAt, isObj, str } from '../util';

export function componentStatusKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'ComponentStatus',
    listKind: 'ComponentStatusList',
    resource: 'componentstatuses',
    singular: 'componentstatus',
    namespaced: false,
    shortNames: ['cs'],
    categories: [],
    // kube's componentstatus REST implements Getter and Lister only
    verbs: ['get', 'list'],
    storage: { group: '', resource: 'componentstatuses' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.ComponentStatus',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate: () => [] },
    table: {
      columns: [
        nameColumn(),
        column('Status', 'string', 'Status of the component conditions'),
        column('Message', 'string', 'Message of the component conditions'),
        column('Error', 'string', 'Error of the component conditions'),
      ],
      cells(obj) {
        // the first Healthy condition decides; no condition reads Unknown
        const healthy = arrAt(obj, 'conditions').find((c) => isObj(c) && c.type === 'Healthy');
        if (!isObj(healthy)) return [str(obj.metadata?.name), 'Unknown', '', ''];
        return [str(obj.metadata?.name), healthy.status === 'True' ? 'Healthy' : 'Unhealthy', str(healthy.message), str(healthy.error)];
      },
    },
  };
}
