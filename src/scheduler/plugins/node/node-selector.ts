/**
 * Node selectors as kube 1.20 matches them (v1helper.MatchNodeSelectorTerms and
 * pluginhelper.PodMatchesNodeSelectorAndAffinityTerms), compiled once so that checking a node
 * costs no parsing. Shared by NodeAffinity, volume binding (PV node affinity) and topology spread.
 *
 * - Terms are ORed; a term's matchExpressions (node labels) and matchFields (only
 *   `metadata.name`) are ANDed. A term with neither, or an invalid one, matches no node.
 * - matchExpressions use In, NotIn, Exists, DoesNotExist, Gt, Lt with kube's requirement checks
 *   (Gt/Lt take exactly one integer); matchFields use In and NotIn with exactly one value.
 */
import { newLabelRequirement, requirementMatches, type LabelOperator, type LabelRequirement } from '../../../api/selectors/label-requirement';
import type { KubeObject } from '../../../client/types';
import { podSpec } from '../../framework/resource';

export interface NodeSelectorRequirementObject {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface NodeSelectorTermObject {
  matchExpressions?: NodeSelectorRequirementObject[] | null;
  matchFields?: NodeSelectorRequirementObject[] | null;
}

export interface PreferredSchedulingTermObject {
  weight?: number;
  preference?: NodeSelectorTermObject | null;
}

interface NodeAffinityObject {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTermObject[] | null } | null;
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTermObject[] | null;
}

const labelOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!', Gt: 'gt', Lt: 'lt' };

/**
 * kube's NodeSelectorRequirementsAsSelector: the label requirements, `undefined` for an empty
 * list (labels.Nothing(): matches no node), or an error message.
 */
export function nodeSelectorRequirementsAsSelector(exprs: readonly NodeSelectorRequirementObject[] | null | undefined): LabelRequirement[] | undefined | { error: string } {
  if (!exprs || exprs.length === 0) return undefined;
  const out: LabelRequirement[] = [];
  for (const e of exprs) {
    const op = labelOperators[e.operator ?? ''];
    if (op === undefined) return { error: `${JSON.stringify(e.operator ?? '')} is not a valid node selector operator` };
    const r = newLabelRequirement(e.key ?? '', op, e.values ? [...e.values] : undefined);
    if ('error' in r) return r;
    out.push(r);
  }
  return out;
}

/** does every requirement hold for these labels? */
export function labelRequirementsMatch(reqs: readonly LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  for (let i = 0; i < reqs.length; i++) if (!requirementMatches(reqs[i], labels)) return false;
  return true;
}

interface FieldRequirement {
  key: string;
  /** true for In (equal), false for NotIn (not equal) */
  equal: boolean;
  value: string;
}

/** kube's NodeSelectorRequirementsAsFieldSelector */
function fieldRequirements(exprs: readonly NodeSelectorRequirementObject[]): FieldRequirement[] | undefined {
  const out: FieldRequirement[] = [];
  for (const e of exprs) {
    if (e.operator !== 'In' && e.operator !== 'NotIn') return undefined;
    if (!e.values || e.values.length !== 1) return undefined;
    out.push({ key: e.key ?? '', equal: e.operator === 'In', value: e.values[0] });
  }
  return out;
}

interface CompiledTerm {
  labels: readonly LabelRequirement[];
  fields: readonly FieldRequirement[];
}

/** a compiled list of node selector terms (a NodeSelector's nodeSelectorTerms) */
export class NodeSelectorTerms {
  /** only the valid, non-empty terms: the others never match */
  readonly #terms: CompiledTerm[];

  private constructor(terms: CompiledTerm[]) {
    this.#terms = terms;
  }

  static compile(terms: readonly NodeSelectorTermObject[] | null | undefined): NodeSelectorTerms {
    const out: CompiledTerm[] = [];
    for (const term of terms ?? []) {
      const exprs = term?.matchExpressions ?? [];
      const fieldExprs = term?.matchFields ?? [];
      if (exprs.length === 0 && fieldExprs.length === 0) continue;
      const labels = exprs.length ? nodeSelectorRequirementsAsSelector(exprs) : [];
      if (labels === undefined || 'error' in labels) continue;
      const fields = fieldExprs.length ? fieldRequirements(fieldExprs) : [];
      if (fields === undefined) continue;
      out.push({ labels, fields });
    }
    return new NodeSelectorTerms(out);
  }

  /**
   * The compiled form of a terms list, cached per list object (a PV's nodeAffinity.required
   * terms, a pod's): objects from informers are replaced, not changed, so this is safe.
   */
  static cached(terms: readonly NodeSelectorTermObject[] | null | undefined): NodeSelectorTerms {
    if (!terms) return NodeSelectorTerms.compile(terms);
    let c = termsCache.get(terms);
    if (!c) termsCache.set(terms, (c = NodeSelectorTerms.compile(terms)));
    return c;
  }

  /** kube's MatchNodeSelectorTerms against a node's labels and name */
  matches(labels: Record<string, string> | undefined, nodeName: string): boolean {
    for (let i = 0; i < this.#terms.length; i++) {
      const t = this.#terms[i];
      if (!labelRequirementsMatch(t.labels, labels)) continue;
      let ok = true;
      for (let j = 0; j < t.fields.length && ok; j++) {
        const f = t.fields[j];
        // the only field a node offers is metadata.name; others read as ''
        const actual = f.key === 'metadata.name' ? nodeName : '';
        ok = f.equal ? actual === f.value : actual !== f.value;
      }
      if (ok) return true;
    }
    return false;
  }

  matchesNode(node: KubeObject): boolean {
    return this.matches(node.metadata?.labels, node.metadata?.name ?? '');
  }
}

/** what a pod requires of its node: spec.nodeSelector and required node affinity, compiled */
export class RequiredNodeSelector {
  readonly #selector: ReadonlyArray<readonly [string, string]>;
  /** undefined: no required node affinity */
  readonly #terms: NodeSelectorTerms | undefined;

  private constructor(pod: KubeObject) {
    const spec = podSpec(pod);
    this.#selector = Object.entries(spec.nodeSelector ?? {});
    const required = nodeAffinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution;
    this.#terms = required ? NodeSelectorTerms.compile(required.nodeSelectorTerms) : undefined;
  }

  /** the pod's compiled requirements (cached per pod object) */
  static of(pod: KubeObject): RequiredNodeSelector {
    let r = cache.get(pod);
    if (!r) cache.set(pod, (r = new RequiredNodeSelector(pod)));
    return r;
  }

  /** kube's PodMatchesNodeSelectorAndAffinityTerms */
  matches(node: KubeObject): boolean {
    const labels = node.metadata?.labels;
    for (let i = 0; i < this.#selector.length; i++) {
      const [k, v] = this.#selector[i];
      if (!labels || !Object.prototype.hasOwnProperty.call(labels, k) || labels[k] !== v) return false;
    }
    return this.#terms === undefined || this.#terms.matchesNode(node);
  }
}

const cache = new WeakMap<KubeObject, RequiredNodeSelector>();
const termsCache = new WeakMap<readonly NodeSelectorTermObject[], NodeSelectorTerms>();

export function nodeAffinityOf(pod: KubeObject): NodeAffinityObject | undefined {
  return (podSpec(pod).affinity as { nodeAffinity?: NodeAffinityObject | null } | undefined)?.nodeAffinity ?? undefined;
}

/** pluginhelper.PodMatchesNodeSelectorAndAffinityTerms */
export function podMatchesNodeSelectorAndAffinityTerms(pod: KubeObject, node: KubeObject): boolean {
  return RequiredNodeSelector.of(pod).matches(node);
}
