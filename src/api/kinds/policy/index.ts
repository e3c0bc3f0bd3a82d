/** the policy group: PodDisruptionBudget in v1 (stored) and v1beta1, PodSecurityPolicy in v1beta1 */
import type { KindDefinition } from '../../kind';
import { podDisruptionBudgetKind } from './poddisruptionbudget';
import { podSecurityPolicyKind } from './podsecuritypolicy';

export function policyKinds(): KindDefinition[] {
  return [podDisruptionBudgetKind('v1'), podDisruptionBudgetKind('v1beta1'), podSecurityPolicyKind()];
}
