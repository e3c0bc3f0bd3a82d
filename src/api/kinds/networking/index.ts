/**
 * networking.k8s.io (v1: Ingress, IngressClass, NetworkPolicy; v1beta1: Ingress, IngressClass) and
 * extensions/v1beta1 (only Ingress, as kube 1.20 serves it), in kube's discovery order.
 */
import type { KindDefinition } from '../../kind';
import { ingressKind } from './ingress';
import { ingressClassKind } from './ingressclass';
import { networkPolicyKind } from './networkpolicy';

export function networkingKinds(): KindDefinition[] {
  return [
    // per version in kube's discovery order (alphabetical by resource)
    ingressClassKind('v1'),
    ingressKind('networking.k8s.io/v1'),
    networkPolicyKind(),
    ingressClassKind('v1beta1'),
    ingressKind('networking.k8s.io/v1beta1'),
  ];
}

export function extensionsKinds(): KindDefinition[] {
  return [ingressKind('extensions/v1beta1')];
}
