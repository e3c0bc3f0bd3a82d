/**
 * A registry with some verbs answered by the caller's own functions and everything else (other
 * verbs, bootstrap, close, idle, ...) by the wrapped registry, bound to it. The shape of every
 * registry wrapper: access reviews, virtual kinds, TokenRequest, RBAC escalation checks, service
 * allocation.
 */
import type { Registry } from './types';

export function withVerbs<R extends Registry>(registry: R, verbs: Partial<Registry>): R {
  return new Proxy(registry, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && Object.hasOwn(verbs, prop)) return verbs[prop as keyof Registry];
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
