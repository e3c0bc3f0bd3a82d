/**
 * ResourceQuota (kube's plugin/pkg/admission/resourcequota), validating. A new object is checked
 * against every quota of its namespace whose status.hard names a resource the object's kind is
 * about and whose scopes it falls under: kube enforces the quota the resourcequota controller has
 * accounted for (status.hard), not the spec the controller has yet to see.
 *
 * - a pod lacking a request or limit the quota limits is refused (`failed quota: q: must specify limits.cpu`);
 * - a quota whose status has no use recorded for those resources refuses (`status unknown for quota: q, resource: pods`);
 * - when status.used plus what the object adds passes status.hard the create is refused in kube's
 *   words (`exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`);
 * - services and claims are also charged on update, for what the update adds (a NodePort, more storage);
 * - otherwise the object's use is added to status.used (not on dry-run), written with the quota's
 *   resourceVersion: a concurrent writer (another server, the controller) makes the check start
 *   again from the newest quotas, so two creates cannot both take the last unit. Checks of one
 *   namespace also run one at a time in this server.
 *
 * Freeing use (deletes, pods that end) is the resourcequota controller's work.
 */
import type { KubeObject } from '../../api/kind';
import { isApiError } from '../../api/errors';
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { admissionForbidden } from '../forbidden';
import { validating } from '../chain';
import { formatQuantity, parseQuantity } from '../quantity';
import { isResourceOf, matchesScopes, missingCompute, usageOf } from './quota-usage';

/** kube's evaluator retries a batch this many times when quota writes conflict */
const MAX_ATTEMPTS = 3;

type ResourceList = Record<string, string | number>;

interface QuotaStatus {
  hard?: ResourceList;
  used?: ResourceList;
}

const statusOf = (quota: KubeObject): QuotaStatus => (quota.status ?? {}) as QuotaStatus;

/** kube's prettyPrint of a resource list: sorted `name=quantity` pairs joined by commas */
function pretty(entries: Array<[string, string]>): string {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(',');
}

export function resourceQuota(ctx: AdmissionPluginContext): Admission {
  const locks = new Map<string, Promise<unknown>>();

  const serialized = async <T>(namespace: string, fn: () => Promise<T>): Promise<T> => {
    const before = locks.get(namespace) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    locks.set(namespace, tail);
    try {
      return await run;
    } finally {
      if (locks.get(namespace) === tail) locks.delete(namespace);
    }
  };

  /** the quota writes this object needs (none when no quota charges it); throws the refusals */
  const evaluate = async (a: AdmissionAttributes): Promise<Array<{ quota: KubeObject; used: Record<string, string> }>> => {
    const obj = a.object!;
    const quotas = await ctx.objects.list(CORE('resourcequotas'), a.namespace);
    const writes: Array<{ quota: KubeObject; used: Record<string, string> }> = [];
    for (const quota of quotas) {
      const { hard = {}, used = {} } = statusOf(quota);
      const restricted = Object.keys(hard).filter((n) => isResourceOf(a.kind, n)).sort();
      if (restricted.length === 0 || !matchesScopes(quota, a.kind, obj)) continue;
      const quotaName = quota.metadata?.name ?? '';
      const missing = missingCompute(a.kind, obj, restricted);
      if (missing.length) throw admissionForbidden(a, `failed quota: ${quotaName}: must specify ${missing.join(',')}`);
      if (restricted.some((n) => used[n] === undefined)) {
        throw admissionForbidden(a, `status unknown for quota: ${quotaName}, resource: ${restricted.join(',')}`);
      }
      // an update is charged what it adds (kube's SubtractWithNonNegativeResult against the old object's use)
      const previous = a.operation === 'UPDATE' && a.oldObject ? a.oldObject : undefined;
      const requested = Object.fromEntries(restricted.map((n) => [n, Math.max(0, usageOf(a.kind, obj, n) - (previous ? usageOf(a.kind, previous, n) : 0))] as const));
      if (previous && restricted.every((n) => requested[n] === 0)) continue;
      const usedNow = Object.fromEntries(restricted.map((n) => [n, parseQuantity(used[n]) ?? 0] as const));
      const exceeded = restricted.filter((n) => usedNow[n] + requested[n] > (parseQuantity(hard[n]) ?? 0));
      if (exceeded.length) {
        throw admissionForbidden(
          a,
          `exceeded quota: ${quotaName}, requested: ${pretty(exceeded.map((n) => [n, formatQuantity(requested[n])]))}, ` +
            `used: ${pretty(exceeded.map((n) => [n, String(used[n])]))}, limited: ${pretty(exceeded.map((n) => [n, String(hard[n])]))}`,
        );
      }
      const charged = restricted.filter((n) => requested[n] > 0);
      if (charged.length === 0) continue;
      const next: Record<string, string> = Object.fromEntries(Object.entries(used).map(([k, v]) => [k, String(v)]));
      for (const n of charged) next[n] = formatQuantity(usedNow[n] + requested[n]);
      writes.push({ quota, used: next });
    }
    return writes;
  };

  /** status.used written with the resourceVersion read: a 409 means someone else wrote first */
  const writeStatus = async (quota: KubeObject, used: Record<string, string>): Promise<void> => {
    const target = ctx.objects.target(CORE('resourcequotas'), quota.metadata?.namespace, quota.metadata?.name);
    if (!target) return;
    const next: KubeObject = { ...quota, status: { ...statusOf(quota), used } };
    await ctx.objects.registry.updateStatus(target, next, { dryRun: false });
  };

  const charge = async (a: AdmissionAttributes): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const writes = await evaluate(a);
      if (a.dryRun || writes.length === 0) return;
      try {
        for (const { quota, used } of writes) await writeStatus(quota, used);
        return;
      } catch (err) {
        if (!(isApiError(err) && err.code === 409) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  };

  return validating(async (a) => {
    // kube's evaluators handle creates; services and claims also on update (a new type, a larger request)
    const updateCharged = a.operation === 'UPDATE' && a.kind.group === '' && (a.kind.resource === 'services' || a.kind.resource === 'persistentvolumeclaims');
    if ((a.operation !== 'CREATE' && !updateCharged) || a.subresource !== '' || !a.object || !a.namespace || !a.kind.namespaced) return;
    await serialized(a.namespace, () => charge(a));
  });
}
