/**
 * Matching pods fast: selectors and affinity terms compiled once into plain functions, and
 * answers about a node's pods remembered per NodeInfo until its generation changes (a pod added
 * or removed), since every pod of a workload asks every node the same questions.
 */
import type { LabelSelector } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import type { AffinityTerm, NodeInfo } from '../../framework/node-info';
import { TopologyCounts, isTerminating, labelsOf, namespaceOf } from './topology';

export type LabelMatcher = (labels: Record<string, string>) => boolean;

const matcherCache = new WeakMap<LabelSelector, LabelMatcher>();

/**
 * A selector as one function: equality requirements become direct lookups (a label value is a
 * string, never something inherited),
 * the rest falls back to the selector's own matching. Cached per selector object, since filters
 * and scores match the same selector against thousands of pods per cycle.
 */
export function compileSelector(selector: LabelSelector): LabelMatcher {
  let m = matcherCache.get(selector);
  if (m) return m;
  if (selector.matchesNothing) m = () => false;
  else if (selector.requirements.every((r) => r.operator === '=' || r.operator === '==' || (r.operator === 'in' && r.values.length === 1))) {
    const keys = selector.requirements.map((r) => r.key);
    const values = selector.requirements.map((r) => r.values[0]);
    const n = keys.length;
    m = (labels) => {
      for (let i = 0; i < n; i++) if (labels[keys[i]] !== values[i]) return false;
      return true;
    };
  } else {
    m = (labels) => selector.matches(labels);
  }
  matcherCache.set(selector, m);
  return m;
}

const selectorKeys = new WeakMap<LabelSelector, string>();

function selectorKey(selector: LabelSelector): string {
  let key = selectorKeys.get(selector);
  if (key === undefined) {
    key = selector.matchesNothing ? '\x00nothing' : selector.toString();
    selectorKeys.set(selector, key);
  }
  return key;
}

/** per NodeInfo: its generation when counted, and the counts by namespace, then selector */
const podCounts = new WeakMap<NodeInfo, { generation: number; counts: Map<string, Map<string, number>> }>();

/**
 * kube's countPodsMatchSelector: the node's pods in the namespace, not terminating, that the
 * selector selects. Remembered per NodeInfo until its generation changes (a pod added or
 * removed), since spreading asks the same question of every node for every pod of a workload.
 */
export function countPodsMatching(info: NodeInfo, selector: LabelSelector, namespace: string): number {
  if (info.pods.length === 0) return 0;
  let memo = podCounts.get(info);
  if (!memo || memo.generation !== info.generation) podCounts.set(info, (memo = { generation: info.generation, counts: new Map() }));
  let bySelector = memo.counts.get(namespace);
  if (!bySelector) memo.counts.set(namespace, (bySelector = new Map()));
  // the same string object for every node of a cycle, so its hash is computed once
  const key = selectorKey(selector);
  let n = bySelector.get(key);
  if (n === undefined) {
    const matches = compileSelector(selector);
    n = 0;
    for (const p of info.pods) {
      if (namespaceOf(p.pod) === namespace && !isTerminating(p.pod) && matches(labelsOf(p.pod))) n++;
    }
    bySelector.set(key, n);
  }
  return n;
}

export type PodMatcher = (pod: KubeObject) => boolean;

const termMatchers = new WeakMap<AffinityTerm, PodMatcher>();

/**
 * An affinity term as one compiled check (kube's PodMatchesTermsNamespaceAndSelector), cached
 * per term: the terms of placed pods live as long as their PodInfo and are asked about every
 * incoming pod.
 */
export function termMatcher(term: AffinityTerm): PodMatcher {
  let m = termMatchers.get(term);
  if (!m) {
    const namespaces = term.namespaces;
    const matches = compileSelector(term.selector);
    m = (pod) => namespaces.has(pod.metadata?.namespace ?? '') && matches(labelsOf(pod));
    termMatchers.set(term, m);
  }
  return m;
}

const termKeys = new WeakMap<AffinityTerm, string>();

/** a key naming what a list of terms selects (namespaces and selectors, not topology keys) */
export function termListKey(terms: readonly AffinityTerm[]): string {
  const parts: string[] = [];
  for (const t of terms) {
    let k = termKeys.get(t);
    if (k === undefined) {
      k = `${[...t.namespaces].sort().join(',')}\x01${selectorKey(t.selector)}`;
      termKeys.set(t, k);
    }
    parts.push(k);
  }
  return parts.join('\x02');
}

const termCounts = new WeakMap<NodeInfo, { generation: number; counts: Map<string, number> }>();

/**
 * How many of the node's pods (terminating ones included, as the affinity plugins count them)
 * every term selects; `key` is termListKey(terms). Remembered per NodeInfo generation, so an
 * incoming pod's terms cost one lookup per node once its workload has been seen.
 */
export function countPodsMatchingAll(info: NodeInfo, terms: readonly AffinityTerm[], key: string): number {
  if (info.pods.length === 0 || terms.length === 0) return 0;
  let memo = termCounts.get(info);
  if (!memo || memo.generation !== info.generation) termCounts.set(info, (memo = { generation: info.generation, counts: new Map() }));
  let n = memo.counts.get(key);
  if (n === undefined) {
    const matchers = terms.map(termMatcher);
    n = 0;
    for (const p of info.pods) if (matchers.every((m) => m(p.pod))) n++;
    memo.counts.set(key, n);
  }
  return n;
}

const nodeMemos = new WeakMap<NodeInfo, { generation: number; values: Map<string, unknown> }>();

/** a value derived from the node's pods, computed once per NodeInfo generation and key */
export function memoForNode<T>(info: NodeInfo, key: string, compute: () => T): T {
  let memo = nodeMemos.get(info);
  if (!memo || memo.generation !== info.generation) nodeMemos.set(info, (memo = { generation: info.generation, values: new Map() }));
  if (memo.values.has(key)) return memo.values.get(key) as T;
  const v = compute();
  memo.values.set(key, v);
  return v;
}

/** what terms can see of a pod: its namespace and labels, as one string */
export function podSignature(pod: KubeObject): string {
  const labels = labelsOf(pod);
  const keys = Object.keys(labels).sort();
  return `${namespaceOf(pod)}\x00${keys.map((k) => `${k}=${labels[k]}`).join(',')}`;
}

/** a list of (topologyKey, topologyValue, amount) to add to counts */
export type PairDeltas = Array<[string, string, number]>;

export function addDeltas(counts: TopologyCounts, deltas: PairDeltas): void {
  for (const [k, v, n] of deltas) counts.add(k, v, n);
}

export function toDeltas(counts: TopologyCounts): PairDeltas {
  const out: PairDeltas = [];
  for (const [k, values] of counts.byKey) for (const [v, n] of values) out.push([k, v, n]);
  return out;
}
