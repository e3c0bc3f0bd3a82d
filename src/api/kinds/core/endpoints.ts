/** core/v1 Endpoints: port protocol default, address and port validation, kube's endpoints table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { isValidIP, isValidPortName, isValidPortNum } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, str } from '../util';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validate(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  arrAt(obj, 'subsets').forEach((s, i) => {
    const p = `subsets[${i}]`;
    for (const key of ['addresses', 'notReadyAddresses']) {
      arrAt(s, key).forEach((a, j) => {
        const ip = isObj(a) ? str(a.ip) : '';
        for (const msg of isValidIP(ip)) causes.push(invalid(`${p}.${key}[${j}].ip`, ip, msg));
      });
    }
    arrAt(s, 'ports').forEach((pt, j) => {
      const pp = `${p}.ports[${j}]`;
      const port = isObj(pt) ? pt : {};
      if (port.name) for (const msg of isValidPortName(str(port.name))) causes.push(invalid(`${pp}.name`, port.name, msg));
      for (const msg of isValidPortNum(port.port as number)) causes.push(invalid(`${pp}.port`, port.port ?? 0, msg));
      if (!port.protocol) causes.push(required(`${pp}.protocol`, ''));
      else if (!PROTOCOLS.includes(str(port.protocol))) causes.push(notSupported(`${pp}.protocol`, port.protocol, PROTOCOLS));
    });
  });
  return causes;
}

/** kube's formatEndpoints: up to three ip:port entries, then `+ N more...` */
export function formatEndpoints(obj: KubeObject): string {
  const subsets = arrAt(obj, 'subsets').filter(isObj);
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addresses = arrAt(ss, 'addresses').filter(isObj).map((a) => str(a.ip));
    const ports = arrAt(ss, 'ports').filter(isObj);
    if (ports.length === 0) {
      count += addresses.length;
      for (const ip of addresses) if (list.length < 3) list.push(ip);
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const ip of addresses) if (list.length < 3) list.push(ip.includes(':') ? `[${ip}]:${port.port}` : `${ip}:${port.port}`);
    }
  }
  const joined = list.join(',');
  return count > 3 ? `${joined} + ${count - 3} more...` : joined;
}

export function endpointsKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Endpoints',
    listKind: 'EndpointsList',
    resource: 'endpoints',
    singular: 'endpoints',
    namespaced: true,
    shortNames: ['ep'],
    categories: [],
    storage: { group: '', resource: 'endpoints' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Endpoints',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults(obj) {
        for (const s of arrAt(obj, 'subsets')) for (const p of arrAt(s, 'ports')) if (isObj(p) && !p.protocol) p.protocol = 'TCP';
      },
      validate,
    },
    table: {
      columns: [nameColumn(), column('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'), ageColumn()],
      cells(obj, now) {
        return [str(obj.metadata?.name), formatEndpoints(obj), age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
