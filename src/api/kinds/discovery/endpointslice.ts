/**
 * EndpointSlice, served as discovery.k8s.io/v1 and v1beta1 and stored as v1. Ports default to an
 * empty name and TCP. As kube does since v1, a write through v1 drops `deprecatedTopology` (it is
 * for reading only there), except that an update that leaves the endpoints unchanged keeps it, and
 * a node name kept only in the old topology's hostname label moves to `nodeName`.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { isDNS1123Subdomain } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, setDefault, str } from '../util';
import { endpointSliceToV1, endpointSliceToV1beta1, HOSTNAME_LABEL } from './endpointslice-conversion';
import { validateEndpointSlice } from './endpointslice-validation';

function defaults(obj: KubeObject): void {
  for (const port of arrAt(obj, 'ports')) {
    if (!isObj(port)) continue;
    setDefault(port, 'name', '');
    setDefault(port, 'protocol', 'TCP');
  }
}

/** kube's dropTopologyOnV1 for a v1 write of `obj` over `old` (undefined on create) */
function dropTopologyOnV1(obj: KubeObject, old: KubeObject | undefined): void {
  if (old && jsonEqual(obj.endpoints, old.endpoints)) return;
  const previous = new Set<string>();
  for (const ep of arrAt(old, 'endpoints')) {
    const host = isObj(ep) && isObj(ep.deprecatedTopology) ? ep.deprecatedTopology[HOSTNAME_LABEL] : undefined;
    if (typeof host === 'string') previous.add(host);
  }
  for (const ep of arrAt(obj, 'endpoints')) {
    if (!isObj(ep)) continue;
    const host = isObj(ep.deprecatedTopology) ? ep.deprecatedTopology[HOSTNAME_LABEL] : undefined;
    if (ep.nodeName === undefined && typeof host === 'string' && previous.has(host) && isDNS1123Subdomain(host).length === 0) ep.nodeName = host;
    delete ep.deprecatedTopology;
  }
}

/** kube's listWithMoreString: up to three items, `<unset>` for none */
function listWithMore(items: string[], total: number): string {
  const shown = items.slice(0, 3).join(',');
  if (total > 3) return `${shown} + ${total - 3} more...`;
  return shown === '' ? '<unset>' : shown;
}

function portsCell(obj: KubeObject): string {
  const ports = arrAt(obj, 'ports').map((p) => {
    const port = isObj(p) ? p : {};
    if (typeof port.port === 'number') return String(port.port);
    return typeof port.name === 'string' ? port.name : '<unset>';
  });
  return listWithMore(ports, ports.length);
}

function endpointsCell(obj: KubeObject): string {
  const addresses = arrAt(obj, 'endpoints').flatMap((ep) => arrAt(ep, 'addresses').map(str));
  return listWithMore(addresses, addresses.length);
}

export function endpointSliceKind(version: 'v1' | 'v1beta1'): KindDefinition {
  const v1 = version === 'v1';
  const toV1 = (obj: KubeObject): KubeObject => (v1 ? obj : endpointSliceToV1(obj));
  return {
    group: 'discovery.k8s.io',
    version,
    kind: 'EndpointSlice',
    listKind: 'EndpointSliceList',
    resource: 'endpointslices',
    singular: 'endpointslice',
    namespaced: true,
    shortNames: [],
    categories: [],
    storage: { group: 'discovery.k8s.io', resource: 'endpointslices' },
    storageVersion: 'v1',
    ...(v1 ? {} : { fromStorage: endpointSliceToV1beta1, toStorage: endpointSliceToV1 }),
    schemaName: `io.k8s.api.discovery.${version}.EndpointSlice`,
    tracksGeneration: true,
    statusSubresource: false,
    strategy: {
      defaults,
      ...(v1
        ? {
            prepareForCreate: (obj: KubeObject) => dropTopologyOnV1(obj, undefined),
            prepareForUpdate: (obj: KubeObject, old: KubeObject) => dropTopologyOnV1(obj, old),
          }
        : {}),
      validate: (obj, old) => validateEndpointSlice(toV1(obj), old ? toV1(old) : undefined, v1 ? 'deprecatedTopology' : 'topology'),
    },
    table: {
      columns: [
        nameColumn(),
        column('AddressType', 'string', 'Type of the addresses of the slice.'),
        column('Ports', 'string', 'Ports served by the endpoints.'),
        column('Endpoints', 'string', 'Addresses of the endpoints.'),
        ageColumn(),
      ],
      cells: (obj, now) => [str(obj.metadata?.name), str(obj.addressType), portsCell(obj), endpointsCell(obj), age(obj, now)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}

