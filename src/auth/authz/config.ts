/**
 * The authorizer of --authorization-mode (kube's authorizer config): flags checked as kube checks
 * them, then one authorizer per mode in the order given, behind kube's privileged-groups
 * authorizer (system:masters may do everything) unless the only mode is AlwaysAllow.
 */
import type { Authorizer } from '../../api/reviews/authorizer';
import { FlagError } from '../../options/types';
import { MASTERS_GROUP } from '../user';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, PrivilegedGroupsAuthorizer } from './always';
import { RbacAuthorizer } from './rbac';
import type { RbacObjects } from './rbac-index';
import { UnionAuthorizer } from './union';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;

export interface AuthorizationConfig {
  readonly modes: readonly string[];
  readonly policyFile?: string;
  readonly webhookConfigFile?: string;
}

/** kube's BuiltInAuthorizationOptions.Validate, its messages joined as kube aggregates them */
export function validateAuthorizationConfig(c: AuthorizationConfig): void {
  const problems: string[] = [];
  const modes = new Set(c.modes);
  if (c.modes.length === 0) problems.push('at least one authorization-mode must be passed');
  for (const mode of c.modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) problems.push(`authorization-mode "${mode}" is not a valid mode`);
    if (mode === 'ABAC' && !c.policyFile) problems.push("authorization-mode ABAC's authorization policy file not passed");
    if (mode === 'Webhook' && !c.webhookConfigFile) problems.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (c.policyFile && !modes.has('ABAC')) problems.push('cannot specify --authorization-policy-file without mode ABAC');
  if (c.webhookConfigFile && !modes.has('Webhook')) problems.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (modes.size !== c.modes.length) problems.push(`authorization-mode [${c.modes.map((m) => `"${m}"`).join(' ')}] has mode specified more than once`);
  if (problems.length === 1) throw new FlagError(problems[0]!);
  if (problems.length > 1) throw new FlagError(`[${problems.join(', ')}]`);
}

/** what each mode is built from; a mode whose factory is missing is a start-up error */
export interface AuthorizerFactories {
  rbac?: () => { objects: RbacObjects; ready?: Promise<void> };
  abac?: () => Authorizer;
  webhook?: () => Authorizer;
  node?: () => Authorizer;
}

export function buildAuthorizer(c: AuthorizationConfig, factories: AuthorizerFactories): Authorizer {
  validateAuthorizationConfig(c);
  if (c.modes.length === 1 && c.modes[0] === 'AlwaysAllow') return new AlwaysAllowAuthorizer();
  const chain: Authorizer[] = [new PrivilegedGroupsAuthorizer([MASTERS_GROUP])];
  const need = <T>(mode: string, factory: (() => T) | undefined): T => {
    if (!factory) throw new Error(`authorization mode ${mode} is not available`);
    return factory();
  };
  for (const mode of c.modes) {
    switch (mode) {
      case 'AlwaysAllow':
        chain.push(new AlwaysAllowAuthorizer());
        break;
      case 'AlwaysDeny':
        chain.push(new AlwaysDenyAuthorizer());
        break;
      case 'RBAC':
        chain.push(new RbacAuthorizer(need(mode, factories.rbac)));
        break;
      case 'ABAC':
        chain.push(need(mode, factories.abac));
        break;
      case 'Webhook':
        chain.push(need(mode, factories.webhook));
        break;
      case 'Node':
        chain.push(need(mode, factories.node));
        break;
    }
  }
  return new UnionAuthorizer(chain);
}
