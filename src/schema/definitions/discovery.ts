/**
 * discovery.k8s.io v1 and v1beta1 EndpointSlice. The versions differ in one field of an endpoint:
 * v1beta1 has a `topology` label map, v1 has `deprecatedTopology` plus `zone` (and `nodeName`,
 * which v1beta1 also has).
 */
import type { Definitions, SchemaNode } from '../types';
import {
  addKind, atomic, bool, core, int32, map, obj, oneOf, ref, set, str,
} from '../dsl';

const V1 = 'io.k8s.api.discovery.v1.';
const V1BETA1 = 'io.k8s.api.discovery.v1beta1.';

export const discoveryDefinitions: Definitions = {};

function addVersion(p: string, version: 'v1' | 'v1beta1'): void {
  const topology: Record<string, SchemaNode> =
    version === 'v1'
      ? {
          deprecatedTopology: map('Topology labels of v1beta1, kept for reading only; writes through v1 drop it.'),
          zone: str('Zone the endpoint is in.'),
        }
      : { topology: map('Topology labels of the endpoint, e.g. kubernetes.io/hostname and topology.kubernetes.io/zone.') };
  Object.assign(discoveryDefinitions, {
    [`${p}Endpoint`]: obj(
      'One backend of the service: its addresses, readiness and place.',
      {
        addresses: set(str(), 'Addresses of the endpoint, of the slice address type; 1 to 100.'),
        conditions: ref(`${p}EndpointConditions`, 'Readiness of the endpoint.'),
        hints: ref(`${p}EndpointHints`, 'Where the endpoint should be used, for topology aware routing.'),
        hostname: str('Host name of the endpoint, a DNS label.'),
        nodeName: str('Node hosting the endpoint.'),
        targetRef: ref(core('ObjectReference'), 'The object backing the endpoint, usually a pod.'),
        ...topology,
      },
      { required: ['addresses'] },
    ),
    [`${p}EndpointConditions`]: obj('Readiness of an endpoint.', {
      ready: bool('Ready for traffic; unset means ready.'),
      serving: bool('Serving, even while terminating.'),
      terminating: bool('Being terminated.'),
    }),
    [`${p}EndpointHints`]: obj('Routing hints of an endpoint.', {
      forNodes: atomic(ref(`${p}ForNode`), 'Nodes that should use the endpoint.'),
      forZones: atomic(ref(`${p}ForZone`), 'Zones that should use the endpoint.'),
    }),
    [`${p}ForZone`]: obj('A zone that should use an endpoint.', { name: str('Name of the zone.') }, { required: ['name'] }),
    [`${p}ForNode`]: obj('A node that should use an endpoint.', { name: str('Name of the node.') }, { required: ['name'] }),
    [`${p}EndpointPort`]: obj(
      'A port every endpoint of the slice serves.',
      {
        appProtocol: str('Application protocol, e.g. kubernetes.io/h2c or a domain-prefixed name.'),
        name: str('Name of the port; empty only when it is the single port.'),
        port: int32('Port number; unset means every port.'),
        protocol: oneOf('TCP, UDP or SCTP. Defaults to TCP.', ['SCTP', 'TCP', 'UDP']),
      },
      { atomic: version === 'v1' },
    ),
  });
  addKind(
    discoveryDefinitions,
    p,
    { group: 'discovery.k8s.io', version, kind: 'EndpointSlice' },
    'A part of the endpoints of a service.',
    {
      addressType: version === 'v1' ? oneOf('IPv4, IPv6 or FQDN. Immutable.', ['FQDN', 'IPv4', 'IPv6']) : str('IPv4, IPv6 or FQDN. Immutable.'),
      endpoints: atomic(ref(`${p}Endpoint`), 'The endpoints; at most 1000.'),
      ports: atomic(ref(`${p}EndpointPort`), 'Ports served by every endpoint; at most 100.'),
    },
    ['addressType', 'endpoints'],
  );
}

addVersion(V1, 'v1');
addVersion(V1BETA1, 'v1beta1');
