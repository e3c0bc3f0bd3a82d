/**
 * DefaultPreemptionArgs of KubeSchedulerConfiguration v1beta1: how many nodes the dry run must
 * turn into candidates before it may stop. Defaults and validation messages are kube 1.20's
 * (SetDefaults_DefaultPreemptionArgs, ValidateDefaultPreemptionArgs).
 */

export interface DefaultPreemptionArgs {
  /** at least this percentage of the nodes are tried (0-100) */
  readonly minCandidateNodesPercentage: number;
  /** and at least this many */
  readonly minCandidateNodesAbsolute: number;
}

export const DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10;
export const DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100;

const PERCENTAGE = 'minCandidateNodesPercentage';
const ABSOLUTE = 'minCandidateNodesAbsolute';

/** field.Invalid's wording */
function invalid(field: string, value: unknown, detail: string): string {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return `${field}: Invalid value: ${shown}: ${detail}`;
}

function intField(raw: Record<string, unknown>, field: string, dflt: number): number {
  const v = raw[field];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(invalid(field, v, 'must be an integer'));
  return v;
}

/** the args with kube's defaults applied; throws kube's aggregated validation error */
export function defaultPreemptionArgs(args: unknown): DefaultPreemptionArgs {
  const raw = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  const percentage = intField(raw, PERCENTAGE, DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE);
  const absolute = intField(raw, ABSOLUTE, DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE);
  const errs: string[] = [];
  if (percentage < 0 || percentage > 100) errs.push(invalid(PERCENTAGE, percentage, 'not in valid range [0, 100]'));
  if (absolute < 0) errs.push(invalid(ABSOLUTE, absolute, 'not in valid range [0, inf)'));
  if (percentage === 0 && absolute === 0) {
    errs.push(invalid(PERCENTAGE, percentage, `cannot be zero at the same time as ${ABSOLUTE}`));
    errs.push(invalid(ABSOLUTE, absolute, `cannot be zero at the same time as ${PERCENTAGE}`));
  }
  // utilerrors.Aggregate prints one error bare and several in brackets
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  return Object.freeze({ minCandidateNodesPercentage: percentage, minCandidateNodesAbsolute: absolute });
}

/**
 * How many candidates the dry run looks for among `numNodes` potential nodes (kube's
 * calculateNumCandidates): the percentage (integer division), at least the absolute number, at
 * most every node.
 */
export function numCandidatesFor(args: DefaultPreemptionArgs, numNodes: number): number {
  let n = Math.trunc((numNodes * args.minCandidateNodesPercentage) / 100);
  if (n < args.minCandidateNodesAbsolute) n = args.minCandidateNodesAbsolute;
  if (n > numNodes) n = numNodes;
  return n;
}
