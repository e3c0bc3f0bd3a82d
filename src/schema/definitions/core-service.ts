/** core/v1 Service, Endpoints and ServiceAccount. */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, core, int32, intOrString, map, meta, mergeList, obj, oneOf, ref, str,
} from '../dsl';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export const coreServiceDefinitions: Definitions = {
  [core('ServiceSpec')]: obj('Desired state of a Service.', {
    allocateLoadBalancerNodePorts: bool('Whether node ports are allocated for a LoadBalancer. Defaults to true.'),
    clusterIP: str('Virtual IP of the service; None makes it headless. Allocated when empty; immutable.'),
    clusterIPs: atomic(str(), 'Virtual IPs, at most one per IP family; the first equals clusterIP.'),
    externalIPs: atomic(str(), 'Extra IPs on which nodes accept traffic for the service.'),
    externalName: str('DNS name returned as a CNAME, for type ExternalName.'),
    externalTrafficPolicy: oneOf('Whether external traffic is routed only to node-local endpoints.', ['Cluster', 'Local']),
    healthCheckNodePort: int32('Node port serving health checks, for Local external traffic.'),
    internalTrafficPolicy: oneOf('Whether in-cluster traffic is routed only to node-local endpoints.', ['Cluster', 'Local']),
    ipFamilies: atomic(oneOf('IP family.', ['', 'IPv4', 'IPv6']), 'IP families of the service, in order.'),
    ipFamilyPolicy: oneOf('Single or dual stack.', ['PreferDualStack', 'RequireDualStack', 'SingleStack']),
    loadBalancerClass: str('Load balancer implementation to use.'),
    loadBalancerIP: str('Deprecated: requested load balancer IP.'),
    loadBalancerSourceRanges: atomic(str(), 'Client CIDRs allowed through the load balancer.'),
    ports: mergeList(ref(core('ServicePort')), 'port', 'Ports the service exposes.', { keys: ['port', 'protocol'] }),
    publishNotReadyAddresses: bool('Publish endpoints of pods that are not ready.'),
    selector: map('Pods with these labels back the service.', { type: 'string' }, { mapType: 'atomic' }),
    sessionAffinity: oneOf('ClientIP or None. Defaults to None.', ['ClientIP', 'None']),
    sessionAffinityConfig: ref(core('SessionAffinityConfig'), 'Session affinity settings.'),
    trafficDistribution: str('Preference for how traffic is spread over endpoints, e.g. PreferClose.'),
    type: oneOf('How the service is exposed. Defaults to ClusterIP.', ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']),
  }),
  [core('ServicePort')]: obj(
    'One port of a service.',
    {
      appProtocol: str('Application protocol of the port, e.g. http or kubernetes.io/h2c.'),
      name: str('Name of the port; required when there are several.'),
      nodePort: int32('Port on every node, for NodePort and LoadBalancer; allocated when empty.'),
      port: int32('Port the service exposes.'),
      protocol: oneOf('TCP, UDP or SCTP. Defaults to TCP.', PROTOCOLS, { default: 'TCP' }),
      targetPort: intOrString('Port number or name on the pods. Defaults to port.'),
    },
    { required: ['port'] },
  ),
  [core('SessionAffinityConfig')]: obj('Session affinity settings.', {
    clientIP: ref(core('ClientIPConfig'), 'Settings for ClientIP affinity.'),
  }),
  [core('ClientIPConfig')]: obj('ClientIP affinity settings.', {
    timeoutSeconds: int32('Seconds a session sticks. Defaults to 10800.'),
  }),
  [core('ServiceStatus')]: obj('Observed state of a Service.', {
    conditions: mergeList(ref(meta('Condition')), 'type', 'Current conditions.'),
    loadBalancer: ref(core('LoadBalancerStatus'), 'The load balancer, if any.'),
  }),
  [core('LoadBalancerStatus')]: obj('A load balancer.', {
    ingress: atomic(ref(core('LoadBalancerIngress')), 'Ingress points.'),
  }),
  [core('LoadBalancerIngress')]: obj('A load balancer ingress point.', {
    hostname: str('DNS name of the point.'),
    ip: str('IP of the point.'),
    ipMode: str('VIP or Proxy: how traffic reaches the node.'),
    ports: atomic(ref(core('PortStatus')), 'Status of each port.'),
  }),
  [core('PortStatus')]: obj(
    'Status of one port.',
    {
      error: str('Problem with the port, as a CamelCase reason.'),
      port: int32('Port number.'),
      protocol: oneOf('TCP, UDP or SCTP.', PROTOCOLS),
    },
    { required: ['port', 'protocol'] },
  ),
  [core('EndpointSubset')]: obj('Addresses sharing one set of ports.', {
    addresses: atomic(ref(core('EndpointAddress')), 'Ready addresses.'),
    notReadyAddresses: atomic(ref(core('EndpointAddress')), 'Addresses not ready yet.'),
    ports: atomic(ref(core('EndpointPort')), 'Ports of the addresses.'),
  }),
  [core('EndpointAddress')]: obj(
    'One endpoint address.',
    {
      hostname: str('Hostname of the endpoint.'),
      ip: str('IP of the endpoint.'),
      nodeName: str('Node hosting the endpoint.'),
      targetRef: ref(core('ObjectReference'), 'Object backing the endpoint, usually a pod.'),
    },
    { required: ['ip'], atomic: true },
  ),
  [core('EndpointPort')]: obj(
    'One endpoint port.',
    {
      appProtocol: str('Application protocol of the port.'),
      name: str('Name matching the service port name.'),
      port: int32('Port number.'),
      protocol: oneOf('TCP, UDP or SCTP. Defaults to TCP.', PROTOCOLS),
    },
    { required: ['port'], atomic: true },
  ),
};

addKind(coreServiceDefinitions, core(''), { group: '', version: 'v1', kind: 'Service' }, 'A stable name and virtual IP for a set of pods.', {
  spec: ref(core('ServiceSpec'), 'Desired state.'),
  status: ref(core('ServiceStatus'), 'Observed state. Read-only.'),
});
addKind(coreServiceDefinitions, core(''), { group: '', version: 'v1', kind: 'Endpoints' }, 'The addresses backing a service.', {
  subsets: atomic(ref(core('EndpointSubset')), 'Groups of addresses with their ports.'),
});
addKind(coreServiceDefinitions, core(''), { group: '', version: 'v1', kind: 'ServiceAccount' }, 'An identity for processes in pods.', {
  automountServiceAccountToken: bool('Whether pods using this account get a token mounted by default.'),
  imagePullSecrets: atomic(ref(core('LocalObjectReference')), 'Pull secrets added to pods using this account.'),
  secrets: mergeList(ref(core('ObjectReference')), 'name', 'Secrets pods using this account may use.'),
});
