/** apiregistration.k8s.io: APIService in v1 (stored) and v1beta1, in kube's discovery order */
import type { KindDefinition } from '../../kind';
import { apiServiceKind } from './apiservice';

export function apiregistrationKinds(): KindDefinition[] {
  return [apiServiceKind('v1'), apiServiceKind('v1beta1')];
}
