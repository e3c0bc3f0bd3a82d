/**
 * Matching node labels against the selectors volumes and storage classes carry: a PersistentVolume's
 * spec.nodeAffinity.required (kube 1.20's volumeutil.CheckNodeAffinity over
 * v1helper.MatchNodeSelectorTerms) and a StorageClass's allowedTopologies
 * (v1helper.MatchTopologySelectorTerms).
 */
import type { KubeObject } from '../../../client/types';

export interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

type Labels = Readonly<Record<string, string>>;

const INTEGER = /^[+-]?\d+$/;

/** one requirement; an invalid one (kube's selector conversion error) matches nothing */
function requirementMatches(r: NodeSelectorRequirement, labels: Labels): boolean {
  const key = r.key ?? '';
  const values = r.values ?? [];
  const has = Object.prototype.hasOwnProperty.call(labels, key);
  switch (r.operator) {
    case 'In':
      return values.length > 0 && has && values.includes(labels[key]);
    case 'NotIn':
      return values.length > 0 && (!has || !values.includes(labels[key]));
    case 'Exists':
      return values.length === 0 && has;
    case 'DoesNotExist':
      return values.length === 0 && !has;
    case 'Gt':
    case 'Lt': {
      if (values.length !== 1 || !INTEGER.test(values[0]) || !has || !INTEGER.test(labels[key])) return false;
      const want = BigInt(values[0]);
      const got = BigInt(labels[key]);
      return r.operator === 'Gt' ? got > want : got < want;
    }
    default:
      return false;
  }
}

/**
 * Any term matches (an empty term matches nothing). Volume node affinity is checked against the
 * node's labels only: kube passes no node fields, so a term with matchFields In never matches.
 */
export function matchNodeSelectorTerms(terms: readonly NodeSelectorTerm[], labels: Labels): boolean {
  const noFields: Labels = {};
  for (const term of terms) {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) continue;
    if (!exprs.every((r) => requirementMatches(r, labels))) continue;
    if (!fields.every((r) => r.key === 'metadata.name' && (r.operator === 'In' || r.operator === 'NotIn') && requirementMatches(r, noFields))) continue;
    return true;
  }
  return false;
}

interface VolumeNodeAffinity {
  required?: { nodeSelectorTerms?: NodeSelectorTerm[] } | null;
}

/** kube's CheckNodeAffinity: a volume without required node affinity fits every node */
export function volumeFitsNode(pv: KubeObject, nodeLabels: Labels): boolean {
  const affinity = (pv.spec as { nodeAffinity?: VolumeNodeAffinity | null } | undefined)?.nodeAffinity;
  const required = affinity?.required;
  if (!required) return true;
  return matchNodeSelectorTerms(required.nodeSelectorTerms ?? [], nodeLabels);
}

export interface TopologySelectorTerm {
  matchLabelExpressions?: Array<{ key?: string; values?: string[] }>;
}

/** kube's MatchTopologySelectorTerms: no terms allow every node; an empty term allows none */
export function matchTopologySelectorTerms(terms: readonly TopologySelectorTerm[] | undefined, labels: Labels): boolean {
  if (!terms || terms.length === 0) return true;
  for (const term of terms) {
    const exprs = term.matchLabelExpressions ?? [];
    if (exprs.length === 0) continue;
    const ok = exprs.every((e) => {
      const values = e.values ?? [];
      const key = e.key ?? '';
      return values.length > 0 && Object.prototype.hasOwnProperty.call(labels, key) && values.includes(labels[key]);
    });
    if (ok) return true;
  }
  return false;
}

/** the node's labels, never undefined */
export function nodeLabels(node: KubeObject | undefined): Labels {
  return node?.metadata?.labels ?? {};
}
