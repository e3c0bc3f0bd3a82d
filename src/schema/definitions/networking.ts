/**
 * networking.k8s.io v1 (Ingress, IngressClass, NetworkPolicy) and v1beta1 (Ingress, IngressClass),
 * and extensions/v1beta1 Ingress. The two beta Ingress forms are the same types in two packages:
 * backends name a service by `serviceName` and an int-or-string `servicePort`, the default backend
 * is `backend`; v1 has `service: {name, port: {name | number}}` and `defaultBackend`.
 */
import type { Definitions, SchemaNode } from '../types';
import {
  addKind, atomic, core, int32, intOrString, meta, obj, oneOf, ref, str,
} from '../dsl';

const V1 = 'io.k8s.api.networking.v1.';
const V1BETA1 = 'io.k8s.api.networking.v1beta1.';
const EXTENSIONS = 'io.k8s.api.extensions.v1beta1.';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export const networkingDefinitions: Definitions = {};

/** the Ingress types every version shares: status, TLS, rules and paths (backend types differ) */
function addIngressCommon(defs: Definitions, p: string, v1: boolean): void {
  defs[`${p}IngressTLS`] = obj('TLS settings for some hosts.', {
    hosts: atomic(str(), 'Hosts in the certificate; must match the rule hosts. Defaults to the wildcard host.'),
    secretName: str('Secret holding the certificate and key; optional when only SNI routing is wanted.'),
  });
  defs[`${p}IngressStatus`] = obj('Observed state of an Ingress.', {
    loadBalancer: ref(`${p}IngressLoadBalancerStatus`, 'The load balancer in front of it.'),
  });
  defs[`${p}IngressLoadBalancerStatus`] = obj('The load balancer of an Ingress.', {
    ingress: atomic(ref(`${p}IngressLoadBalancerIngress`), 'Its ingress points.'),
  });
  defs[`${p}IngressLoadBalancerIngress`] = obj('An ingress point of the load balancer.', {
    hostname: str('DNS name of the ingress point.'),
    ip: str('IP address of the ingress point.'),
    ports: atomic(ref(`${p}IngressPortStatus`), 'Status of its ports.'),
  });
  defs[`${p}IngressPortStatus`] = obj(
    'Status of one port of an ingress point.',
    {
      error: str('Problem with the port, as a CamelCase reason (optionally domain-prefixed); empty when fine.'),
      port: int32('Port number.'),
      protocol: oneOf('TCP, UDP or SCTP.', PROTOCOLS),
    },
    { required: ['port', 'protocol'] },
  );
  defs[`${p}IngressRule`] = obj('Routes the requests for one host (or every host).', {
    host: str('Host name (a wildcard is allowed as the first label); empty means every host.'),
    http: ref(`${p}HTTPIngressRuleValue`, 'HTTP paths of this host.'),
  });
  defs[`${p}HTTPIngressRuleValue`] = obj(
    'HTTP paths routed to backends.',
    { paths: atomic(ref(`${p}HTTPIngressPath`), 'Paths and their backends.') },
    { required: ['paths'] },
  );
  defs[`${p}HTTPIngressPath`] = obj(
    'A path and the backend its requests go to.',
    {
      backend: ref(`${p}IngressBackend`, 'Where matching requests go.'),
      path: str('Path matched against the request path; must start with "/".'),
      pathType: oneOf(
        v1 ? 'How the path matches: Exact, Prefix or ImplementationSpecific. Required.' : 'How the path matches: Exact, Prefix or ImplementationSpecific (the default).',
        PATH_TYPES,
      ),
    },
    { required: v1 ? ['pathType', 'backend'] : ['backend'] },
  );
}

function ingressSpec(p: string, v1: boolean): SchemaNode {
  const backend: Record<string, SchemaNode> = v1
    ? { defaultBackend: ref(`${p}IngressBackend`, 'Backend of requests that match no rule.') }
    : { backend: ref(`${p}IngressBackend`, 'Backend of requests that match no rule.') };
  return obj('Desired state of an Ingress.', {
    ...backend,
    ingressClassName: str('Name of the IngressClass whose controller implements this Ingress.'),
    rules: atomic(ref(`${p}IngressRule`), 'Host rules; requests matching none go to the default backend.'),
    tls: atomic(ref(`${p}IngressTLS`), 'TLS settings.'),
  });
}

function addIngress(defs: Definitions, p: string, group: string, version: string, v1: boolean): void {
  addIngressCommon(defs, p, v1);
  defs[`${p}IngressSpec`] = ingressSpec(p, v1);
  addKind(defs, p, { group, version, kind: 'Ingress' }, 'Routes outside HTTP(S) traffic to services by host and path.', {
    spec: ref(`${p}IngressSpec`, 'Desired state.'),
    status: ref(`${p}IngressStatus`, 'Observed state. Read-only.'),
  });
}

/** beta backends: a service by name and int-or-string port, or a resource */
function betaBackend(): SchemaNode {
  return obj('Where requests go: a service and port, or another resource.', {
    resource: ref(core('TypedLocalObjectReference'), 'An object in the namespace of the Ingress; excludes serviceName and servicePort.'),
    serviceName: str('Name of the service.'),
    servicePort: intOrString('Port of the service, by number or name.'),
  });
}

function addIngressClass(defs: Definitions, p: string, version: string): void {
  defs[`${p}IngressClassSpec`] = obj('Desired state of an IngressClass.', {
    controller: str('Domain-prefixed name of the controller implementing the class, e.g. example.com/ingress-ctl. Immutable.'),
    parameters: ref(`${p}IngressClassParametersReference`, 'An object holding further settings of the controller.'),
  });
  defs[`${p}IngressClassParametersReference`] = obj(
    'Names the object holding controller settings.',
    {
      apiGroup: str('Group of the kind; empty for the core group.'),
      kind: str('Kind of the object.'),
      name: str('Name of the object.'),
      namespace: str('Namespace of the object; required when scope is Namespace, absent when Cluster.'),
      scope: str('Cluster or Namespace. Defaults to Cluster.'),
    },
    { required: version === 'v1' ? ['kind', 'name'] : ['kind', 'name', 'scope'] },
  );
  addKind(defs, p, { group: 'networking.k8s.io', version, kind: 'IngressClass' }, 'A class of Ingresses and the controller that implements it.', {
    spec: ref(`${p}IngressClassSpec`, 'Desired state.'),
  });
}

// ---- networking.k8s.io/v1
addIngress(networkingDefinitions, V1, 'networking.k8s.io', 'v1', true);
Object.assign(networkingDefinitions, {
  [`${V1}IngressBackend`]: obj('Where requests go: a service or another resource.', {
    resource: ref(core('TypedLocalObjectReference'), 'An object in the namespace of the Ingress; excludes service.'),
    service: ref(`${V1}IngressServiceBackend`, 'A service; excludes resource.'),
  }),
  [`${V1}IngressServiceBackend`]: obj(
    'A service and one of its ports.',
    {
      name: str('Name of the service, in the namespace of the Ingress.'),
      port: ref(`${V1}ServiceBackendPort`, 'Port of the service.'),
    },
    { required: ['name'] },
  ),
  [`${V1}ServiceBackendPort`]: obj(
    'A service port, by name or number (one of them).',
    {
      name: str('Name of the port.'),
      number: int32('Number of the port.'),
    },
    { atomic: true },
  ),
});
addIngressClass(networkingDefinitions, V1, 'v1');

Object.assign(networkingDefinitions, {
  [`${V1}NetworkPolicySpec`]: obj('Which traffic the selected pods may send and receive.', {
    egress: atomic(ref(`${V1}NetworkPolicyEgressRule`), 'Allowed outgoing traffic (with Egress in policyTypes).'),
    ingress: atomic(ref(`${V1}NetworkPolicyIngressRule`), 'Allowed incoming traffic (with Ingress in policyTypes).'),
    podSelector: ref(meta('LabelSelector'), 'Pods the policy applies to, in its namespace; empty selects all.'),
    policyTypes: atomic(oneOf('Ingress or Egress.', ['Egress', 'Ingress']), 'Directions the policy governs. Defaults to Ingress, plus Egress when egress rules exist.'),
  }),
  [`${V1}NetworkPolicyIngressRule`]: obj('Incoming traffic allowed when it matches both ports and from.', {
    from: atomic(ref(`${V1}NetworkPolicyPeer`), 'Allowed sources; empty allows all.'),
    ports: atomic(ref(`${V1}NetworkPolicyPort`), 'Allowed ports; empty allows all.'),
  }),
  [`${V1}NetworkPolicyEgressRule`]: obj('Outgoing traffic allowed when it matches both ports and to.', {
    ports: atomic(ref(`${V1}NetworkPolicyPort`), 'Allowed ports; empty allows all.'),
    to: atomic(ref(`${V1}NetworkPolicyPeer`), 'Allowed destinations; empty allows all.'),
  }),
  [`${V1}NetworkPolicyPort`]: obj('A port, or a range of ports, and a protocol.', {
    endPort: int32('Last port of a range starting at port; port must then be a number.'),
    port: intOrString('Port number or named port; empty means every port.'),
    protocol: oneOf('TCP, UDP or SCTP. Defaults to TCP.', PROTOCOLS),
  }),
  [`${V1}NetworkPolicyPeer`]: obj('A set of pods, namespaces or IP addresses.', {
    ipBlock: ref(`${V1}IPBlock`, 'An IP range; excludes the selectors.'),
    namespaceSelector: ref(meta('LabelSelector'), 'Namespaces whose pods (narrowed by podSelector) match.'),
    podSelector: ref(meta('LabelSelector'), 'Pods in the policy namespace (or the selected namespaces).'),
  }),
  [`${V1}IPBlock`]: obj(
    'An IP range with exceptions.',
    {
      cidr: str('The range, e.g. 192.168.1.0/24 or 2001:db8::/64.'),
      except: atomic(str(), 'Sub-ranges left out.'),
    },
    { required: ['cidr'] },
  ),
});
addKind(networkingDefinitions, V1, { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' }, 'Network traffic allowed to and from a set of pods.', {
  spec: ref(`${V1}NetworkPolicySpec`, 'Desired behaviour.'),
});

// ---- networking.k8s.io/v1beta1 and extensions/v1beta1
for (const [p, group] of [[V1BETA1, 'networking.k8s.io'], [EXTENSIONS, 'extensions']] as const) {
  addIngress(networkingDefinitions, p, group, 'v1beta1', false);
  networkingDefinitions[`${p}IngressBackend`] = betaBackend();
}
addIngressClass(networkingDefinitions, V1BETA1, 'v1beta1');
