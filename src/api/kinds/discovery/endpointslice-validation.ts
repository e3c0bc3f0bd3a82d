/**
 * kube's EndpointSlice validation (pkg/apis/discovery/validation), run on the v1 form: the address
 * type (IPv4, IPv6 or FQDN; the deprecated IP only on update; immutable), at most 1000 endpoints
 * of 1 to 100 addresses checked against the address type, node names, topology labels (at most
 * 16; `topology` in v1beta1, `deprecatedTopology` in v1), host names, hints (later releases), and
 * at most 100 ports with unique DNS-label names, TCP/UDP/SCTP and qualified-name app protocols.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { duplicate, immutable, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidIP, isValidLabelValue } from '../../validation/names';
import { validateLabels } from '../../validation/object-meta';
import { arrAt, isObj, objAt, str, type Obj } from '../util';
import { validateFullyQualifiedDomainName } from '../networking/formats';
import { ipv4Error, ipv6Error } from '../networking/ip';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const ADDRESS_TYPES_ON_UPDATE = ['FQDN', 'IP', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_ENDPOINTS = 1000;
const MAX_HINTS = 8;

/** kube's field.TooMany */
function tooMany(field: string, actual: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items`, field };
}

function validateAddress(type: string, address: string, p: string): StatusCause[] {
  switch (type) {
    case 'IP':
      return isValidIP(address).map((msg) => invalid(p, address, msg));
    case 'IPv4': {
      const msg = ipv4Error(address);
      return msg ? [invalid(p, address, msg)] : [];
    }
    case 'IPv6': {
      const msg = ipv6Error(address);
      return msg ? [invalid(p, address, msg)] : [];
    }
    case 'FQDN':
      return validateFullyQualifiedDomainName(p, address);
    default:
      // unknown types fall through unchecked, as in kube
      return [];
  }
}

function validateHints(hints: Obj, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, check] of [['forZones', isValidLabelValue], ['forNodes', isDNS1123Subdomain]] as const) {
    const entries = arrAt(hints, key);
    if (entries.length > MAX_HINTS) {
      causes.push(tooMany(`${p}.${key}`, entries.length, MAX_HINTS));
      continue;
    }
    const seen = new Set<string>();
    entries.forEach((e, i) => {
      const name = isObj(e) ? str(e.name) : '';
      const np = `${p}.${key}[${i}].name`;
      if (seen.has(name)) causes.push(duplicate(np, name));
      seen.add(name);
      for (const msg of check(name)) causes.push(invalid(np, name, msg));
    });
  }
  return causes;
}

function validateEndpoint(ep: Obj, type: string, p: string, topologyField: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const addresses = arrAt(ep, 'addresses');
  if (addresses.length === 0) causes.push(required(`${p}.addresses`, 'must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES) causes.push(tooMany(`${p}.addresses`, addresses.length, MAX_ADDRESSES));
  addresses.forEach((a, i) => causes.push(...validateAddress(type, str(a), `${p}.addresses[${i}]`)));
  if (typeof ep.nodeName === 'string') for (const msg of isDNS1123Subdomain(ep.nodeName)) causes.push(invalid(`${p}.nodeName`, ep.nodeName, msg));
  const topology = ep.deprecatedTopology;
  if (isObj(topology) && Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
    causes.push(tooMany(`${p}.${topologyField}`, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
  }
  causes.push(...validateLabels(topology, `${p}.${topologyField}`));
  if (typeof ep.hostname === 'string') for (const msg of isDNS1123Label(ep.hostname)) causes.push(invalid(`${p}.hostname`, ep.hostname, msg));
  const hints = objAt(ep, 'hints');
  if (hints) causes.push(...validateHints(hints, `${p}.hints`));
  return causes;
}

function validatePorts(ports: unknown[]): StatusCause[] {
  if (ports.length > MAX_PORTS) return [tooMany('ports', ports.length, MAX_PORTS)];
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const port = isObj(raw) ? raw : {};
    const p = `ports[${i}]`;
    const name = str(port.name);
    if (name !== '') for (const msg of isDNS1123Label(name)) causes.push(invalid(`${p}.name`, name, msg));
    if (names.has(name)) causes.push(duplicate(`${p}.name`, name));
    names.add(name);
    if (port.protocol === undefined || port.protocol === null) causes.push(required(`${p}.protocol`, ''));
    else if (!PROTOCOLS.includes(str(port.protocol))) causes.push(notSupported(`${p}.protocol`, port.protocol, PROTOCOLS));
    if (typeof port.appProtocol === 'string') for (const msg of isQualifiedName(port.appProtocol)) causes.push(invalid(`${p}.appProtocol`, port.appProtocol, msg));
  });
  return causes;
}

/**
 * kube's ValidateEndpointSliceCreate/Update on v1 forms; `topologyField` names the topology map
 * as the request's version does
 */
export function validateEndpointSlice(obj: KubeObject, old: KubeObject | undefined, topologyField: 'topology' | 'deprecatedTopology'): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = str(obj.addressType);
  const allowed = old ? ADDRESS_TYPES_ON_UPDATE : ADDRESS_TYPES;
  if (type === '') causes.push(required('addressType', ''));
  else if (!allowed.includes(type)) causes.push(notSupported('addressType', type, allowed));
  const endpoints = arrAt(obj, 'endpoints');
  if (endpoints.length > MAX_ENDPOINTS) causes.push(tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else endpoints.forEach((ep, i) => causes.push(...validateEndpoint(isObj(ep) ? ep : {}, type, `endpoints[${i}]`, topologyField)));
  causes.push(...validatePorts(arrAt(obj, 'ports')));
  if (old) causes.push(...immutable('addressType', obj.addressType, old.addressType));
  return causes;
}
