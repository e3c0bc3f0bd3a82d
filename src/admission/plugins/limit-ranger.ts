/**
 * LimitRanger (kube's plugin/pkg/admission/limitranger) over the LimitRanges of the object's
 * namespace. Mutating: containers of a new pod get the Container items' default limits and default
 * requests for resources they do not set (noted in the kubernetes.io/limit-ranger annotation).
 * Validating: min, max and maxLimitRequestRatio of Container, Pod (sums) and
 * PersistentVolumeClaim (storage request) items; refusals are one 403 listing every violation.
 * Pod updates are not looked at (containers' resources do not change), as in kube.
 */
import type { KubeObject } from '../../api/kind';
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { admissionForbidden, aggregate, isResource } from '../forbidden';
import { formatQuantity, parseQuantity } from '../quantity';
import type { Container, ResourceList } from './pod';
import { podSpec } from './pod';

const ANNOTATION = 'kubernetes.io/limit-ranger';

interface LimitRangeItem {
  type?: string;
  min?: ResourceList;
  max?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

/** kube's SetDefaults_LimitRangeItem for Container items: default from max, defaultRequest from default, then min */
export function effectiveItem(item: LimitRangeItem): LimitRangeItem {
  if (item.type !== 'Container') return item;
  const def: ResourceList = { ...(item.max ?? {}), ...(item.default ?? {}) };
  const defReq: ResourceList = { ...(item.min ?? {}), ...def, ...(item.defaultRequest ?? {}) };
  return { ...item, default: def, defaultRequest: defReq };
}

function itemsOf(ranges: KubeObject[]): LimitRangeItem[] {
  const items: LimitRangeItem[] = [];
  for (const r of ranges) {
    const limits = (r.spec as { limits?: LimitRangeItem[] } | undefined)?.limits;
    if (Array.isArray(limits)) items.push(...limits.map(effectiveItem));
  }
  return items;
}

function applies(a: AdmissionAttributes): boolean {
  if (a.subresource !== '' || !a.object || a.object.metadata?.deletionTimestamp) return false;
  if (isResource(a, '', 'pods')) return a.operation === 'CREATE';
  return isResource(a, '', 'persistentvolumeclaims') && (a.operation === 'CREATE' || a.operation === 'UPDATE');
}

function defaultContainer(c: Container, item: LimitRangeItem, what: string, notes: string[]): void {
  const resources = (c.resources ??= {});
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(item.default ?? {})) {
    if (resources.limits?.[k] === undefined) {
      (resources.limits ??= {})[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(item.defaultRequest ?? {})) {
    if (resources.requests?.[k] === undefined) {
      (resources.requests ??= {})[k] = v;
      setRequests.push(k);
    }
  }
  if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${what} ${c.name ?? ''}`);
  if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${what} ${c.name ?? ''}`);
}

/** kube's min/max/ratio constraints of one item's resources against observed requests and limits */
function check(type: string, item: LimitRangeItem, observedRequests: ResourceList, observedLimits: ResourceList, errs: string[]): void {
  // pod totals are numbers; print them as quantities
  const text = (list: ResourceList): ResourceList => Object.fromEntries(Object.entries(list).map(([k, v]) => [k, typeof v === 'number' ? formatQuantity(v) : v]));
  const requests = text(observedRequests);
  const limits = text(observedLimits);
  for (const [k, v] of Object.entries(item.min ?? {})) {
    const req = requests[k];
    if (req === undefined) errs.push(`minimum ${k} usage per ${type} is ${v}.  No request is specified`);
    else if ((parseQuantity(req) ?? 0) < (parseQuantity(v) ?? 0)) errs.push(`minimum ${k} usage per ${type} is ${v}, but request is ${req}`);
  }
  for (const [k, v] of Object.entries(item.max ?? {})) {
    if (type === 'PersistentVolumeClaim') {
      const req = requests[k];
      if (req !== undefined && (parseQuantity(req) ?? 0) > (parseQuantity(v) ?? 0)) errs.push(`maximum ${k} usage per ${type} is ${v}, but request is ${req}`);
      continue;
    }
    const lim = limits[k];
    if (lim === undefined) errs.push(`maximum ${k} usage per ${type} is ${v}.  No limit is specified`);
    else if ((parseQuantity(lim) ?? 0) > (parseQuantity(v) ?? 0)) errs.push(`maximum ${k} usage per ${type} is ${v}, but limit is ${lim}`);
  }
  for (const [k, v] of Object.entries(item.maxLimitRequestRatio ?? {})) {
    const req = parseQuantity(requests[k]) ?? 0;
    const lim = limits[k];
    if (lim === undefined) errs.push(`${k} max limit to request ratio per ${type} is ${v}, but no limit is specified`);
    else if (req === 0) errs.push(`${k} max limit to request ratio per ${type} is ${v}, but no request is specified or request is 0`);
    else {
      const ratio = (parseQuantity(lim) ?? 0) / req;
      if (ratio > (parseQuantity(v) ?? 0)) errs.push(`${k} max limit to request ratio per ${type} is ${v}, but provided ratio is ${ratio.toFixed(6)}`);
    }
  }
}

/** the pod's requests or limits: sum of containers, at least the largest init container */
function podTotals(containers: Container[], inits: Container[], which: 'requests' | 'limits'): ResourceList {
  const total: Record<string, number> = {};
  for (const c of containers) for (const [k, v] of Object.entries(c.resources?.[which] ?? {})) total[k] = (total[k] ?? 0) + (parseQuantity(v) ?? 0);
  for (const c of inits) for (const [k, v] of Object.entries(c.resources?.[which] ?? {})) total[k] = Math.max(total[k] ?? 0, parseQuantity(v) ?? 0);
  return total;
}

export function limitRanger(ctx: AdmissionPluginContext): Admission {
  const items = async (a: AdmissionAttributes) => itemsOf(await ctx.objects.list(CORE('limitranges'), a.namespace));
  return {
    async admit(a) {
      if (!applies(a) || !isResource(a, '', 'pods')) return;
      const found = (await items(a)).filter((i) => i.type === 'Container');
      if (found.length === 0) return;
      const spec = podSpec(a.object!);
      const notes: string[] = [];
      for (const item of found) {
        for (const c of spec.containers ?? []) defaultContainer(c, item, 'container', notes);
        for (const c of spec.initContainers ?? []) defaultContainer(c, item, 'init container', notes);
      }
      if (notes.length) {
        const meta = (a.object!.metadata ??= {});
        meta.annotations = { ...(meta.annotations ?? {}), [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
      }
    },
    async validate(a) {
      if (!applies(a)) return;
      const found = await items(a);
      if (found.length === 0) return;
      const errs: string[] = [];
      if (isResource(a, '', 'pods')) {
        const spec = podSpec(a.object!);
        const containers = spec.containers ?? [];
        const inits = spec.initContainers ?? [];
        for (const item of found) {
          if (item.type === 'Container') {
            for (const c of [...containers, ...inits]) check('Container', item, c.resources?.requests ?? {}, c.resources?.limits ?? {}, errs);
          } else if (item.type === 'Pod') {
            check('Pod', item, podTotals(containers, inits, 'requests'), podTotals(containers, inits, 'limits'), errs);
          }
        }
      } else {
        const resources = (a.object!.spec as { resources?: { requests?: ResourceList; limits?: ResourceList } } | undefined)?.resources;
        for (const item of found) {
          if (item.type === 'PersistentVolumeClaim') check('PersistentVolumeClaim', item, resources?.requests ?? {}, resources?.limits ?? {}, errs);
        }
      }
      if (errs.length) throw admissionForbidden(a, aggregate(errs));
    },
  };
}
