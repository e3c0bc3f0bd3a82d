/**
 * The pod subresources that act on the pod object itself, as kube 1.32 lists them in discovery:
 * binding (POST a v1 Binding), eviction (POST a policy Eviction; discovery names policy/v1) and
 * ephemeralcontainers (the pod, writable in spec.ephemeralContainers only). Their behaviour is in
 * src/api/registry/subresources (pod-binding.ts, pod-eviction.ts, pod-ephemeral-containers.ts).
 */
import type { SubresourceDefinition } from '../../kind';

export function podActionSubresources(): SubresourceDefinition[] {
  return [
    {
      name: 'binding',
      type: 'action',
      verbs: ['create'],
      kind: { group: '', version: 'v1', kind: 'Binding' },
      bodyKinds: [{ apiVersion: 'v1', kind: 'Binding' }],
      schemaName: 'io.k8s.api.core.v1.Binding',
    },
    {
      name: 'eviction',
      type: 'action',
      verbs: ['create'],
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      bodyKinds: [
        { apiVersion: 'policy/v1', kind: 'Eviction' },
        { apiVersion: 'policy/v1beta1', kind: 'Eviction' },
      ],
      schemaName: 'io.k8s.api.policy.v1.Eviction',
    },
    { name: 'ephemeralcontainers', type: 'partial', verbs: ['get', 'patch', 'update'] },
  ];
}
