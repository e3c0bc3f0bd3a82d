/**
 * ResourceQuota (kube's plugin/pkg/admission/resourcequota), validating: a new object is charged to
 * every quota of its namespace whose scopes it falls under; when the namespace's use plus the
 * object's would pass a hard limit the create is refused in kube's words (`exceeded quota: q,
 * requested: pods=1, used: pods=2, limited: pods=2`), and a pod lacking a request or limit a quota
 * limits is refused (`failed quota: q: must specify limits.cpu`). Otherwise status.hard and
 * status.used of the charged quotas are written (not on dry-run).
 *
 * Ballast runs no quota controller: the use is counted from the stored objects at each admission,
 * plus the charges of creates admitted in the last seconds that are not stored yet (so two
 * concurrent creates cannot both take the last unit). Checks of one namespace run one at a time.
 */
import type { KindDefinition, KubeObject } from '../../api/kind';
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext, ResourceRef } from '../context';
import { CORE } from '../context';
import { admissionForbidden } from '../forbidden';
import { validating } from '../chain';
import { formatQuantity, parseQuantity } from '../quantity';
import { matchesScopes, missingCompute, usageOf } from './quota-usage';

const PENDING_TTL_MS = 30_000;

interface Pending {
  uid: string;
  kind: KindDefinition;
  object: KubeObject;
  expires: number;
}

function refOf(kind: KindDefinition): ResourceRef {
  return { group: kind.group, version: kind.version, resource: kind.resource };
}

/** kube's prettyPrint of a resource list: sorted `name=quantity` pairs joined by commas */
function pretty(entries: Array<[string, string]>): string {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(',');
}

export function resourceQuota(ctx: AdmissionPluginContext, now: () => number = Date.now): Admission {
  const locks = new Map<string, Promise<unknown>>();
  const pending = new Map<string, Pending[]>();

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

  /** the namespace's use of `names` by objects of `kind`: stored ones plus pending charges not stored yet */
  const usedBy = async (kind: KindDefinition, namespace: string, names: string[]): Promise<Record<string, number>> => {
    const stored = await ctx.objects.list(refOf(kind), namespace);
    const storedUids = new Set(stored.map((o) => o.metadata?.uid));
    const live = (pending.get(namespace) ?? []).filter((p) => p.expires > now() && !storedUids.has(p.uid));
    pending.set(namespace, live);
    const objects = [...stored, ...live.filter((p) => p.kind.resource === kind.resource && p.kind.group === kind.group).map((p) => p.object)];
    const used: Record<string, number> = {};
    for (const name of names) used[name] = objects.reduce((sum, o) => sum + usageOf(kind, o, name), 0);
    return used;
  };

  const charge = async (a: AdmissionAttributes): Promise<void> => {
    const obj = a.object!;
    const quotas = (await ctx.objects.list(CORE('resourcequotas'), a.namespace)).filter((q) => matchesScopes(q, a.kind, obj));
    const writes: Array<{ quota: KubeObject; used: Record<string, string> }> = [];
    for (const quota of quotas) {
      const hard = ((quota.spec as { hard?: Record<string, string | number> } | undefined)?.hard ?? {}) as Record<string, string | number>;
      const names = Object.keys(hard);
      const quotaName = quota.metadata?.name ?? '';
      const missing = missingCompute(a.kind, obj, names);
      if (missing.length) throw admissionForbidden(a, `failed quota: ${quotaName}: must specify ${missing.join(',')}`);
      const requested = Object.fromEntries(names.map((n) => [n, usageOf(a.kind, obj, n)] as const));
      const charged = names.filter((n) => requested[n] > 0);
      if (charged.length === 0) continue;
      const used = await usedBy(a.kind, a.namespace, charged);
      const exceeded = charged.filter((n) => used[n] + requested[n] > (parseQuantity(hard[n]) ?? 0));
      if (exceeded.length) {
        throw admissionForbidden(
          a,
          `exceeded quota: ${quotaName}, requested: ${pretty(exceeded.map((n) => [n, formatQuantity(requested[n])]))}, ` +
            `used: ${pretty(exceeded.map((n) => [n, formatQuantity(used[n])]))}, limited: ${pretty(exceeded.map((n) => [n, String(hard[n])]))}`,
        );
      }
      // the whole status.used: the other resources counted too (those this object does not use)
      const all = { ...(await usedAll(quota, names, charged)), ...Object.fromEntries(charged.map((n) => [n, used[n] + requested[n]] as const)) };
      writes.push({ quota, used: Object.fromEntries(names.map((n) => [n, formatQuantity(all[n] ?? 0)])) });
    }
    if (a.dryRun || writes.length === 0) return;
    const list = pending.get(a.namespace) ?? [];
    list.push({ uid: obj.metadata?.uid ?? '', kind: a.kind, object: obj, expires: now() + PENDING_TTL_MS });
    pending.set(a.namespace, list);
    for (const { quota, used } of writes) await writeStatus(quota, used);
  };

  /** status.used of the resources the new object does not touch, as they were recorded */
  const usedAll = async (quota: KubeObject, names: string[], charged: string[]): Promise<Record<string, number>> => {
    const recorded = ((quota.status as { used?: Record<string, unknown> } | undefined)?.used ?? {}) as Record<string, unknown>;
    return Object.fromEntries(names.filter((n) => !charged.includes(n)).map((n) => [n, parseQuantity(recorded[n]) ?? 0] as const));
  };

  const writeStatus = async (quota: KubeObject, used: Record<string, string>): Promise<void> => {
    const target = ctx.objects.target(CORE('resourcequotas'), quota.metadata?.namespace, quota.metadata?.name);
    if (!target) return;
    const hard = (quota.spec as { hard?: Record<string, unknown> } | undefined)?.hard ?? {};
    const next: KubeObject = { ...quota, metadata: { ...quota.metadata, resourceVersion: undefined }, status: { hard, used } };
    await ctx.objects.registry.updateStatus(target, next, { dryRun: false });
  };

  return validating(async (a) => {
    // kube charges creates (and updates that grow usage; pods' resources do not change on update)
    if (a.operation !== 'CREATE' || a.subresource !== '' || !a.object || !a.namespace || !a.kind.namespaced) return;
    await serialized(a.namespace, () => charge(a));
  });
}
