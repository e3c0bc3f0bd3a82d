/**
 * Whether a node passes a pod's nodeSelector and required node affinity (kube 1.20's
 * PodMatchesNodeSelectorAndAffinityTerms), compiled once per pod so that the per-node check is a
 * few label lookups. PodTopologySpread counts only such nodes.
 *
 * A private copy until the node plugins' matcher (src/scheduler/plugins/node/) can be imported.
 */
import { newLabelRequirement, requirementMatches, type LabelOperator, type LabelRequirement } from '../../../api/selectors/label-requirement';
import type { KubeObject } from '../../../client/types';
import { labelsOf } from './topology';

interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null;
  matchFields?: NodeSelectorRequirement[] | null;
}

export type NodeMatcher = (node: KubeObject) => boolean;

const operators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!', Gt: 'gt', Lt: 'lt' };

/** v1helper.NodeSelectorRequirementsAsSelector: undefined when any requirement is invalid */
function labelRequirements(exprs: NodeSelectorRequirement[]): LabelRequirement[] | undefined {
  const out: LabelRequirement[] = [];
  for (const e of exprs) {
    const op = operators[e.operator ?? ''];
    if (!op) return undefined;
    const r = newLabelRequirement(e.key ?? '', op, e.values && e.values.length ? [...e.values] : undefined);
    if ('error' in r) return undefined;
    out.push(r);
  }
  return out;
}

/** v1helper.NodeSelectorRequirementsAsFieldSelector: only metadata.name, In/NotIn with one value */
function fieldRequirements(exprs: NodeSelectorRequirement[]): Array<{ equal: boolean; value: string }> | undefined {
  const out: Array<{ equal: boolean; value: string }> = [];
  for (const e of exprs) {
    if (e.key !== 'metadata.name') return undefined;
    if ((e.operator !== 'In' && e.operator !== 'NotIn') || (e.values ?? []).length !== 1) return undefined;
    out.push({ equal: e.operator === 'In', value: e.values![0] });
  }
  return out;
}

/** one compiled term; a term with nothing in it, or an invalid one, matches no node */
function compileTerm(term: NodeSelectorTerm): NodeMatcher | undefined {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return undefined;
  const reqs = exprs.length ? labelRequirements(exprs) : [];
  const fieldReqs = fields.length ? fieldRequirements(fields) : [];
  if (!reqs || !fieldReqs) return undefined;
  return (node) => {
    const labels = labelsOf(node);
    for (const r of reqs) if (!requirementMatches(r, labels)) return false;
    const name = node.metadata?.name ?? '';
    for (const f of fieldReqs) if ((name === f.value) !== f.equal) return false;
    return true;
  };
}

const EVERY_NODE: NodeMatcher = () => true;

/** the pod's nodeSelector and required node affinity as one check */
export function compileNodeMatcher(pod: KubeObject): NodeMatcher {
  const spec = (pod.spec ?? {}) as {
    nodeSelector?: Record<string, string> | null;
    affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] | null } | null } | null } | null;
  };
  const selector = Object.entries(spec.nodeSelector ?? {});
  const nodeAffinity = spec.affinity?.nodeAffinity;
  const required = nodeAffinity ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  let terms: NodeMatcher[] | undefined;
  if (required) terms = (required.nodeSelectorTerms ?? []).map(compileTerm).filter((t): t is NodeMatcher => t !== undefined);
  if (selector.length === 0 && terms === undefined) return EVERY_NODE;
  return (node) => {
    if (selector.length > 0) {
      const labels = labelsOf(node);
      for (const [k, v] of selector) if (labels[k] !== v) return false;
    }
    if (terms === undefined) return true;
    for (const t of terms) if (t(node)) return true;
    return false;
  };
}
