/** apps/v1 StatefulSet: kube's defaults, validation (including the update restrictions), scale and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Label } from '../../validation/names';
import { defaultTemplateIn, nonNegative, validateSelectorAndTemplate } from '../pod-template';
import { validateAnnotations, validateLabels } from '../../validation/object-meta';
import { age, ageColumn, column, containerCells, containerColumns, nameColumn } from '../table-format';
import { arrAt, clone, ensureObj, int, isObj, objAt, setDefault, str } from '../util';
import { intOrPercentValue, validatePositiveIntOrPercent } from './int-or-percent';
import { replicasScale } from './scale';
import { jsonEqual } from '../../json-value';

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const strategy = ensureObj(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    ensureObj(strategy, 'rollingUpdate');
  }
  if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate)) setDefault(strategy.rollingUpdate, 'partition', 0);
  const retention = ensureObj(spec, 'persistentVolumeClaimRetentionPolicy');
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  for (const pvc of arrAt(spec, 'volumeClaimTemplates')) {
    if (!isObj(pvc)) continue;
    const meta = ensureObj(pvc, 'metadata');
    if (!('creationTimestamp' in meta)) meta.creationTimestamp = null;
    setDefault(ensureObj(pvc, 'spec'), 'volumeMode', 'Filesystem');
    setDefault(ensureObj(pvc, 'status'), 'phase', 'Pending');
  }
  defaultTemplateIn(spec);
}

function validateUpdateStrategy(strategy: unknown): StatusCause[] {
  const field = 'spec.updateStrategy';
  if (!isObj(strategy) || !strategy.type) return [required(field, '')];
  if (strategy.type === 'OnDelete') {
    return isObj(strategy.rollingUpdate) ? [invalid(`${field}.rollingUpdate`, strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'")] : [];
  }
  if (strategy.type !== 'RollingUpdate') return [invalid(field, strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  const ru = strategy.rollingUpdate;
  if (!isObj(ru)) return [];
  const causes = nonNegative(ru.partition, `${field}.rollingUpdate.partition`);
  if (ru.maxUnavailable !== undefined && ru.maxUnavailable !== null) {
    causes.push(...validatePositiveIntOrPercent(ru.maxUnavailable, `${field}.rollingUpdate.maxUnavailable`));
    if (intOrPercentValue(ru.maxUnavailable) === 0) causes.push(invalid(`${field}.rollingUpdate.maxUnavailable`, ru.maxUnavailable, 'should not be 0'));
  }
  return causes;
}

const POLICIES = ['OrderedReady', 'Parallel'];
const RETENTION = ['Retain', 'Delete'];

function validateSpec(spec: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  const pmp = spec.podManagementPolicy;
  if (!pmp) causes.push(required('spec.podManagementPolicy', ''));
  else if (!POLICIES.includes(str(pmp))) causes.push(invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  causes.push(...validateUpdateStrategy(spec.updateStrategy));
  const retention = objAt(spec, 'persistentVolumeClaimRetentionPolicy');
  for (const key of ['whenDeleted', 'whenScaled']) {
    const v = retention?.[key];
    if (v !== undefined && !RETENTION.includes(str(v))) causes.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, v, RETENTION));
  }
  if (typeof spec.serviceName === 'string' && spec.serviceName !== '') {
    for (const msg of isDNS1123Label(spec.serviceName)) causes.push(invalid('spec.serviceName', spec.serviceName, msg));
  }
  causes.push(
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
    ...validateSelectorAndTemplate(spec, 'spec', 'empty selector is invalid for statefulset'),
    ...validateTemplate(spec.template),
  );
  return causes;
}

/**
 * kube's ValidatePodTemplateSpecForStatefulSet and the template rules of ValidateStatefulSetSpec:
 * the template's labels and annotations (kube's paths: spec.template.labels, .annotations), restart
 * policy Always, no activeDeadlineSeconds. kube does not validate the template's pod spec here: its
 * volumeMounts may name volumes that only the volumeClaimTemplates bring, which the controller adds
 * to each pod, and the pods themselves are validated when they are created.
 */
function validateTemplate(template: unknown): StatusCause[] {
  if (!isObj(template)) return [required('spec.template', '')];
  const meta = objAt(template, 'metadata') ?? {};
  const podSpec = objAt(template, 'spec') ?? {};
  const causes = [...validateLabels(meta.labels, 'spec.template.labels'), ...validateAnnotations(meta.annotations, 'spec.template.annotations')];
  if (podSpec.restartPolicy !== 'Always') causes.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    causes.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return causes;
}

/** kube's ValidateStatefulSetUpdate: only these spec fields may change */
const UPDATABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'minReadySeconds', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy'];

function validateUpdate(spec: Record<string, unknown>, oldSpec: Record<string, unknown>): StatusCause[] {
  const a = clone(spec);
  const b = clone(oldSpec);
  for (const k of UPDATABLE) {
    delete a[k];
    delete b[k];
  }
  const causes: StatusCause[] = [];
  if (!jsonEqual(a, b)) {
    causes.push(
      forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return causes;
}

export function statefulSetKind(): KindDefinition {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    listKind: 'StatefulSetList',
    resource: 'statefulsets',
    singular: 'statefulset',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    storage: { group: 'apps', resource: 'statefulsets' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.apps.v1.StatefulSet',
    tracksGeneration: true,
    statusSubresource: true,
    scale: replicasScale,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        obj.status = { replicas: 0, availableReplicas: 0 };
      },
      validate(obj, old) {
        const spec = objAt(obj, 'spec') ?? {};
        const causes = validateSpec(spec);
        if (old) causes.push(...validateUpdate(spec, objAt(old, 'spec') ?? {}));
        return causes;
      },
    },
    table: {
      columns: [nameColumn(), column('Ready', 'string', 'Number of the pod with ready state'), ageColumn(), ...containerColumns(false)],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const [names, images] = containerCells(objAt(objAt(spec, 'template'), 'spec'));
        return [str(obj.metadata?.name), `${int(status.readyReplicas)}/${int(spec.replicas)}`, age(obj, now), names, images];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
