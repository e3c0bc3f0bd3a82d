/**
 * policy/v1 and policy/v1beta1 PodDisruptionBudget, stored as v1 (kube's storage version): kube's
 * ValidatePodDisruptionBudget (minAvailable xor maxUnavailable, each an int or a percentage up to
 * 100%, a valid selector, a non-negative status), the status subresource, generation, and kubectl's
 * table. The versions differ only in what an empty selector means (see pdb-conversion.ts).
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, notSupported } from '../../validation/field-errors';
import { validatePositiveIntOrPercent, notMoreThan100Percent } from '../apps/int-or-percent';
import { validateLabelSelector } from '../label-selector';
import { nonNegative } from '../pod-template';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { int, objAt, str } from '../util';
import { pdbFromV1, pdbToV1 } from './pdb-conversion';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

function validateSpec(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const hasMin = spec.minAvailable !== undefined && spec.minAvailable !== null;
  const hasMax = spec.maxUnavailable !== undefined && spec.maxUnavailable !== null;
  if (hasMin && hasMax) causes.push(invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  for (const f of ['minAvailable', 'maxUnavailable']) {
    causes.push(...validatePositiveIntOrPercent(spec[f], `spec.${f}`), ...notMoreThan100Percent(spec[f], `spec.${f}`));
  }
  causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== null && !EVICTION_POLICIES.includes(str(policy))) {
    causes.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  }
  return causes;
}

/** kube's ValidatePodDisruptionBudgetStatus: the counters are never negative */
function validateStatus(obj: KubeObject): StatusCause[] {
  const status = objAt(obj, 'status') ?? {};
  return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap((f) => nonNegative(status[f], `status.${f}`));
}

/** kube's printPodDisruptionBudget: an unset bound prints N/A */
function bound(value: unknown): string {
  if (value === undefined || value === null) return 'N/A';
  return typeof value === 'number' ? String(value) : str(value);
}

export function podDisruptionBudgetKind(version: 'v1' | 'v1beta1'): KindDefinition {
  const kind: KindDefinition = {
    group: 'policy',
    version,
    kind: 'PodDisruptionBudget',
    listKind: 'PodDisruptionBudgetList',
    resource: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    namespaced: true,
    shortNames: ['pdb'],
    categories: [],
    storage: { group: 'policy', resource: 'poddisruptionbudgets' },
    storageVersion: 'policy/v1',
    schemaName: `io.k8s.api.policy.${version}.PodDisruptionBudget`,
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults() {},
      prepareForCreate(obj) {
        // kube's PrepareForCreate: an empty status, whose counters are always written
        obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
      },
      validate(obj) {
        return [...validateSpec(obj), ...validateStatus(obj)];
      },
      validateStatus,
    },
    table: {
      columns: [
        nameColumn(),
        column('Min Available', 'string', 'The minimum number of pods that must be available.'),
        column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
        column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
        ageColumn(),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        return [str(obj.metadata?.name), bound(spec.minAvailable), bound(spec.maxUnavailable), int(objAt(obj, 'status')?.disruptionsAllowed), age(obj, now)];
      },
    },
    // kube keeps orphaning dependents by default for policy/v1beta1 requests, for old clients
    defaultGarbageCollectionPolicy: version === 'v1beta1' ? 'Orphan' : 'Background',
  };
  if (version === 'v1beta1') {
    kind.toStorage = pdbToV1;
    kind.fromStorage = pdbFromV1;
  }
  return kind;
}
