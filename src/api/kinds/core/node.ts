/** core/v1 Node: cluster-scoped, status may be set on create (the kubelet registers with status) */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid } from '../../validation/field-errors';
import { isValidIP } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, objAt, path, str } from '../util';
import { nodeConnectSubresources } from './connect-subresources';

const ROLE_PREFIX = 'node-role.kubernetes.io/';

function validate(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objAt(obj, 'spec') ?? {};
  if (typeof spec.podCIDR === 'string' && spec.podCIDR !== '' && !/^[0-9a-fA-F:.]+\/\d+$/.test(spec.podCIDR)) {
    causes.push(invalid('spec.podCIDR', spec.podCIDR, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  }
  arrAt(objAt(obj, 'status'), 'addresses').forEach((a, i) => {
    if (isObj(a) && (a.type === 'InternalIP' || a.type === 'ExternalIP')) {
      for (const msg of isValidIP(str(a.address))) causes.push(invalid(`status.addresses[${i}].address`, a.address, msg));
    }
  });
  return causes;
}

function statusCell(obj: KubeObject): string {
  const ready = arrAt(objAt(obj, 'status'), 'conditions').find((c) => isObj(c) && c.type === 'Ready');
  const status: string[] = [isObj(ready) ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (path(obj, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function roles(obj: KubeObject): string {
  const set = new Set<string>();
  for (const [k, v] of Object.entries(objAt(obj.metadata, 'labels') ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) set.add(k.slice(ROLE_PREFIX.length));
    else if (k === 'kubernetes.io/role' && typeof v === 'string' && v) set.add(v);
  }
  return set.size ? [...set].sort().join(',') : '<none>';
}

function address(obj: KubeObject, type: string): string {
  const a = arrAt(objAt(obj, 'status'), 'addresses').find((x) => isObj(x) && x.type === type);
  return isObj(a) ? str(a.address) : '<none>';
}

export function nodeKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Node',
    listKind: 'NodeList',
    resource: 'nodes',
    singular: 'node',
    namespaced: false,
    shortNames: ['no'],
    categories: [],
    storage: { group: '', resource: 'nodes' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Node',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults(obj) {
        // kube's SetDefaults_NodeStatus: allocatable defaults to capacity
        const status = objAt(obj, 'status');
        if (status && status.allocatable === undefined && isObj(status.capacity)) status.allocatable = { ...status.capacity };
      },
      validate,
      validateStatus: (obj) => validate(obj),
    },
    selectableFields(obj) {
      return { 'spec.unschedulable': path(obj, 'spec', 'unschedulable') === true ? 'true' : 'false' };
    },
    table: {
      columns: [
        nameColumn(),
        column('Status', 'string', 'The status of the node'),
        column('Roles', 'string', 'The roles of the node'),
        ageColumn(),
        column('Version', 'string', 'Kubelet Version reported by the node.'),
        column('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
        column('External-IP', 'string', 'List of addresses reachable to the node.', 1),
        column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
        column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
        column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
      ],
      cells(obj, now) {
        const info = objAt(objAt(obj, 'status'), 'nodeInfo') ?? {};
        return [
          str(obj.metadata?.name),
          statusCell(obj),
          roles(obj),
          age(obj, now),
          str(info.kubeletVersion),
          address(obj, 'InternalIP'),
          address(obj, 'ExternalIP'),
          str(info.osImage) || '<unknown>',
          str(info.kernelVersion) || '<unknown>',
          str(info.containerRuntimeVersion) || '<unknown>',
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
    subresources: nodeConnectSubresources(),
  };
}
