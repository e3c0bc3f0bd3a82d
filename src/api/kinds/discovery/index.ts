/** discovery.k8s.io: EndpointSlice in v1 (the storage version) and v1beta1. */
import type { KindDefinition } from '../../kind';
import { endpointSliceKind } from './endpointslice';

export function discoveryKinds(): KindDefinition[] {
  return [endpointSliceKind('v1'), endpointSliceKind('v1beta1')];
}
