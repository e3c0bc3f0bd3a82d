/** core/v1 Service: kube's defaults, allocation of cluster IPs and node ports, validation and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { duplicate, forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Label, isDNS1123Subdomain, isValidIP, isValidPortName, isValidPortNum } from '../../validation/names';
import { validateLabels } from '../../validation/object-meta';
import { age, ageColumn, column, formatLabels, nameColumn } from '../table-format';
import { arrAt, ensureObj, isObj, objAt, str } from '../util';
import type { Obj } from '../util';
import { allocateOnCreate, hashAllocator, keepAllocatedOnUpdate } from './service-allocation';
import type { ServiceAllocator } from './service-allocation';
import { serviceConnectSubresources } from './connect-subresources';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && !isObj(spec.sessionAffinityConfig)) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of arrAt(spec, 'ports')) {
    if (!isObj(p)) continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const externallyAccessible = spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && arrAt(spec, 'externalIPs').length > 0);
  if (externallyAccessible && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (!spec.internalTrafficPolicy && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(str(spec.type))) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
}

function validatePorts(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const ports = arrAt(spec, 'ports');
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') causes.push(required('spec.ports', ''));
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((pt, i) => {
    const p = `spec.ports[${i}]`;
    const port = isObj(pt) ? pt : {};
    const name = str(port.name);
    if (ports.length > 1 && !name) causes.push(required(`${p}.name`, ''));
    if (name) {
      // service port names are DNS-1123 labels (kube's validateServicePort), unlike container port names
      for (const msg of isDNS1123Label(name)) causes.push(invalid(`${p}.name`, name, msg));
      if (names.has(name)) causes.push(duplicate(`${p}.name`, name));
      names.add(name);
    }
    for (const msg of isValidPortNum(port.port as number)) causes.push(invalid(`${p}.port`, port.port ?? 0, msg));
    if (!port.protocol) causes.push(required(`${p}.protocol`, ''));
    else if (!PROTOCOLS.includes(str(port.protocol))) causes.push(notSupported(`${p}.protocol`, port.protocol, PROTOCOLS));
    const tp = port.targetPort;
    if (typeof tp === 'number') for (const msg of isValidPortNum(tp)) causes.push(invalid(`${p}.targetPort`, tp, msg));
    if (typeof tp === 'string') for (const msg of isValidPortName(tp)) causes.push(invalid(`${p}.targetPort`, tp, msg));
    if (spec.type === 'ClusterIP' && port.nodePort !== undefined && port.nodePort !== 0) {
      causes.push(forbidden(`${p}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
    const key = `${port.port}/${port.protocol}`;
    if (keys.has(key)) causes.push(duplicate(p, { port: port.port, protocol: port.protocol }));
    keys.add(key);
  });
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const type = spec.type;
  if (!TYPES.includes(str(type))) causes.push(notSupported('spec.type', type ?? '', TYPES));
  if (type === 'ExternalName') {
    const en = str(spec.externalName);
    if (!en) causes.push(required('spec.externalName', ''));
    else for (const msg of isDNS1123Subdomain(en.replace(/\.$/, ''))) causes.push(invalid('spec.externalName', en, msg));
  }
  if (!AFFINITIES.includes(str(spec.sessionAffinity))) causes.push(notSupported('spec.sessionAffinity', spec.sessionAffinity ?? '', AFFINITIES));
  causes.push(...validatePorts(spec));
  causes.push(...validateLabels(spec.selector, 'spec.selector'));
  arrAt(spec, 'clusterIPs').forEach((ip, i) => {
    if (ip !== 'None' && ip !== '') for (const msg of isValidIP(str(ip))) causes.push(invalid(`spec.clusterIPs[${i}]`, ip, msg));
  });
  arrAt(spec, 'externalIPs').forEach((ip, i) => {
    for (const msg of isValidIP(str(ip))) causes.push(invalid(`spec.externalIPs[${i}]`, ip, msg));
  });
  if (old) {
    const oldSpec = objAt(old, 'spec') ?? {};
    // kube: the primary cluster IP may not change unless the service moves to or from ExternalName
    const oldIPs = arrAt(oldSpec, 'clusterIPs');
    const newIPs = arrAt(spec, 'clusterIPs');
    if (oldSpec.type !== 'ExternalName' && type !== 'ExternalName' && oldIPs.length > 0 && newIPs.length > 0 && oldIPs[0] !== newIPs[0]) {
      causes.push(invalid('spec.clusterIPs[0]', newIPs, 'may not change once set'));
    }
  }
  return causes;
}

/** kube's getServiceExternalIP for the table */
function externalIP(spec: Obj, status: Obj): string {
  const external = arrAt(spec, 'externalIPs').map(str);
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [...new Set(arrAt(objAt(status, 'loadBalancer'), 'ingress').filter(isObj).map((i) => str(i.ip) || str(i.hostname)).filter(Boolean))].sort();
      let lbs = lb.join(',');
      if (lbs.length > 16) lbs = `${lbs.slice(0, 13)}...`;
      if (external.length) return [...(lbs ? lbs.split(',') : []), ...external].join(',');
      return lbs || '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function portsCell(spec: Obj): string {
  const pieces = arrAt(spec, 'ports')
    .filter(isObj)
    .map((p) => (typeof p.nodePort === 'number' && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${str(p.protocol)}` : `${p.port}/${str(p.protocol)}`));
  return pieces.length ? pieces.join(',') : '<none>';
}

/** `allocator`: where cluster IPs and node ports come from (the server's live allocator) */
export function serviceKind(allocator: ServiceAllocator = hashAllocator): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Service',
    listKind: 'ServiceList',
    resource: 'services',
    singular: 'service',
    namespaced: true,
    nameValidation: 'dns1035Label',
    shortNames: ['svc'],
    categories: ['all'],
    storage: { group: '', resource: 'services' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Service',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        obj.status = { loadBalancer: {} };
        allocateOnCreate(obj, allocator);
      },
      prepareForUpdate(obj, old) {
        keepAllocatedOnUpdate(obj, old, allocator);
      },
      beforeStore: async (obj, old) => allocator.claim?.(obj, old),
      validate,
    },
    selectableFields(obj) {
      const spec = objAt(obj, 'spec') ?? {};
      return { 'spec.clusterIP': str(spec.clusterIP), 'spec.type': str(spec.type) };
    },
    table: {
      columns: [
        nameColumn(),
        column('Type', 'string', 'type determines how the Service is exposed.'),
        column('Cluster-IP', 'string', 'clusterIP is the IP address of the service.'),
        column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
        column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
        ageColumn(),
        column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const ips = arrAt(spec, 'clusterIPs');
        return [
          str(obj.metadata?.name),
          str(spec.type),
          typeof ips[0] === 'string' ? ips[0] : '<none>',
          externalIP(spec, objAt(obj, 'status') ?? {}),
          portsCell(spec),
          age(obj, now),
          formatLabels(spec.selector),
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
    subresources: serviceConnectSubresources(),
  };
}
