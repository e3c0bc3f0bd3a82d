/**
 * core/v1 Binding as the `bindings` resource: create only, namespaced, never stored. A POST binds
 * the pod the Binding names to its target node, exactly as POST pods/<name>/binding does (kube's
 * LegacyBindingREST); withVirtualKinds (src/api/virtual) routes it to that subresource.
 */
import type { KindDefinition } from '../../kind';

export function bindingKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Binding',
    listKind: 'BindingList',
    resource: 'bindings',
    singular: 'binding',
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    storage: { group: '', resource: 'bindings' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Binding',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate: () => [] },
  };
}
