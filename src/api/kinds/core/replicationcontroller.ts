/**
 * core/v1 ReplicationController: kube's SetDefaults_ReplicationController (selector and labels from
 * the template labels, one replica), ValidateReplicationController(Spec|Status), the scale
 * subresource over its map selector, the `status.replicas` field label and kubectl's table.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject, ScaleDefinition } from '../../kind';
import { forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { nonNegative, validatePodTemplate } from '../pod-template';
import { defaultPodTemplate } from '../pod-defaults';
import { age, ageColumn, column, containerCells, containerColumns, formatLabels, nameColumn } from '../table-format';
import { arrAt, ensureObj, int, isObj, objAt, str, stringMap } from '../util';
import type { Obj } from '../util';

/** kube's labels.SelectorFromSet(...).String(): `k=v` pairs sorted by key */
function mapSelectorString(selector: unknown): string {
  const m = stringMap(selector);
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${m[k]}`)
    .join(',');
}

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  const template = objAt(spec, 'template');
  const labels = objAt(objAt(template, 'metadata'), 'labels');
  if (labels) {
    if (Object.keys(stringMap(spec.selector)).length === 0) spec.selector = { ...labels };
    const meta = ensureObj(obj as Obj, 'metadata');
    if (Object.keys(stringMap(meta.labels)).length === 0) meta.labels = { ...labels };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (template) defaultPodTemplate(template);
}

/** kube's ValidatePodTemplateSpecForRC */
function validateTemplate(spec: Obj): StatusCause[] {
  const template = spec.template;
  if (!isObj(template)) return [required('spec.template', '')];
  const causes: StatusCause[] = [];
  const selector = stringMap(spec.selector);
  const labels = stringMap(objAt(template, 'metadata')?.labels);
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    causes.push(invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  causes.push(...validatePodTemplate(template, 'spec.template', { restartPolicies: ['Always', 'OnFailure', 'Never'] }));
  const podSpec = objAt(template, 'spec') ?? {};
  if (int(spec.replicas) > 1) {
    arrAt(podSpec, 'volumes').forEach((v, i) => {
      const pd = objAt(v, 'gcePersistentDisk');
      if (pd && pd.readOnly !== true) {
        causes.push(invalid(`spec.template.spec.volumes[${i}].gcePersistentDisk.readOnly`, false, 'must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'));
      }
    });
  }
  if (podSpec.restartPolicy !== 'Always') causes.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    causes.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return causes;
}

function validate(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes = [...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds')];
  if (Object.keys(stringMap(spec.selector)).length === 0) causes.push(required('spec.selector', ''));
  causes.push(...nonNegative(spec.replicas, 'spec.replicas'));
  causes.push(...validateTemplate(spec));
  return causes;
}

/** kube's ValidateReplicationControllerStatus */
function validateStatus(obj: KubeObject): StatusCause[] {
  const status = objAt(obj, 'status') ?? {};
  const causes: StatusCause[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) {
    causes.push(...nonNegative(status[f], `status.${f}`));
  }
  const replicas = int(status.replicas);
  const msg = 'cannot be greater than status.replicas';
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (int(status[f]) > replicas) causes.push(invalid(`status.${f}`, int(status[f]), msg));
  }
  if (int(status.availableReplicas) > int(status.readyReplicas)) {
    causes.push(invalid('status.availableReplicas', int(status.availableReplicas), 'cannot be greater than readyReplicas'));
  }
  return causes;
}

const rcScale: ScaleDefinition = {
  getSpecReplicas: (obj) => int(objAt(obj, 'spec')?.replicas, 1),
  setSpecReplicas(obj, replicas) {
    ensureObj(obj, 'spec').replicas = replicas;
  },
  getStatusReplicas: (obj) => int(objAt(obj, 'status')?.replicas),
  getSelector: (obj) => mapSelectorString(objAt(obj, 'spec')?.selector),
};

export function replicationControllerKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    listKind: 'ReplicationControllerList',
    resource: 'replicationcontrollers',
    singular: 'replicationcontroller',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    storage: { group: '', resource: 'replicationcontrollers' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.ReplicationController',
    tracksGeneration: true,
    statusSubresource: true,
    scale: rcScale,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        obj.status = { replicas: 0 };
      },
      validate,
      validateStatus,
    },
    selectableFields: (obj) => ({ 'status.replicas': String(int(objAt(obj, 'status')?.replicas)) }),
    table: {
      columns: [
        nameColumn(),
        column('Desired', 'integer', 'Number of desired pods.'),
        column('Current', 'integer', 'Most recently observed number of pods.'),
        column('Ready', 'integer', 'Number of ready pods.'),
        ageColumn(),
        ...containerColumns(true),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const [names, images] = containerCells(objAt(objAt(spec, 'template'), 'spec'));
        return [
          str(obj.metadata?.name),
          int(spec.replicas),
          int(status.replicas),
          int(status.readyReplicas),
          age(obj, now),
          names,
          images,
          formatLabels(spec.selector),
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
