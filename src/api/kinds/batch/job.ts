/**
 * batch/v1 Job: kube's defaults (SetDefaults_Job), the generated controller-uid selector and labels,
 * validation, `status.successful` field label and table.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable, invalid, required } from '../../validation/field-errors';
import { selectorMatches, selectorString } from '../label-selector';
import { defaultTemplateIn } from '../pod-template';
import { age, ageColumn, column, containerCells, containerColumns, humanDuration, nameColumn } from '../table-format';
import { arrAt, ensureObj, int, isObj, objAt, setDefault, str } from '../util';
import { validateJobSpec } from './job-spec';

export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  const unset = (v: unknown): boolean => v === undefined || v === null;
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', unset(spec.backoffLimitPerIndex) ? 6 : 2147483647);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'podReplacementPolicy', unset(spec.podFailurePolicy) ? 'TerminatingOrFailed' : 'Failed');
  defaultTemplateIn(spec);
  // batch/v1: a job without labels takes its template's labels
  const templateLabels = objAt(objAt(spec, 'template'), 'metadata')?.labels;
  const meta = ensureObj(obj, 'metadata');
  if (isObj(templateLabels) && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = { ...templateLabels } as Record<string, string>;
}

/** kube's generateSelector: pods get the job's uid and name as labels, and the selector picks the uid */
export function generateJobSelector(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (spec.manualSelector === true) return;
  const uid = str(obj.metadata?.uid);
  const name = str(obj.metadata?.name);
  if (!uid) return;
  const tmeta = ensureObj(ensureObj(spec, 'template'), 'metadata');
  const labels = ensureObj(tmeta, 'labels');
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (labels[key] === undefined) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (labels[key] === undefined) labels[key] = uid;
  const selector = ensureObj(spec, 'selector');
  const matchLabels = ensureObj(selector, 'matchLabels');
  if (matchLabels[CONTROLLER_UID_LABEL] === undefined) matchLabels[CONTROLLER_UID_LABEL] = uid;
}

/** kube's validateGeneratedSelector: the generated labels are present and selected */
function validateGeneratedSelector(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  if (spec.manualSelector === true) return [];
  const uid = str(obj.metadata?.uid);
  if (!uid) return [required('metadata.uid', '')];
  const causes: StatusCause[] = [];
  const labels = objAt(objAt(objAt(spec, 'template'), 'metadata'), 'labels') ?? {};
  const want: Array<[string, string]> = [
    [LEGACY_CONTROLLER_UID_LABEL, uid],
    [CONTROLLER_UID_LABEL, uid],
    [LEGACY_JOB_NAME_LABEL, str(obj.metadata?.name)],
    [JOB_NAME_LABEL, str(obj.metadata?.name)],
  ];
  for (const [key, value] of want) {
    if (labels[key] === undefined) causes.push(required('spec.template.metadata.labels', `\`${key}\` must be '${value}'`));
    else if (labels[key] !== value) causes.push(invalid('spec.template.metadata.labels', labels[key], `\`${key}\` must be '${value}'`));
  }
  if (!selectorMatches(spec.selector, { [CONTROLLER_UID_LABEL]: uid })) {
    causes.push(invalid('spec.selector', spec.selector ?? null, '`selector` not auto-generated'));
  }
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  if (!old) {
    // kube generates the selector during create validation, once the uid is known
    generateJobSelector(obj);
    const causes = validateGeneratedSelector(obj);
    return [...causes, ...validateJobSpec(objAt(obj, 'spec') ?? {}, 'spec')];
  }
  const oldSpec = objAt(old, 'spec') ?? {};
  return [
    ...validateJobSpec(spec, 'spec'),
    ...immutable('spec.selector', spec.selector, oldSpec.selector),
    ...immutable('spec.template', spec.template, oldSpec.template),
    ...immutable('spec.completionMode', spec.completionMode, oldSpec.completionMode),
    ...immutable('spec.podFailurePolicy', spec.podFailurePolicy, oldSpec.podFailurePolicy),
    ...(spec.completionMode === 'Indexed' && spec.completions === spec.parallelism ? [] : immutable('spec.completions', spec.completions, oldSpec.completions)),
  ];
}

function hasCondition(status: Record<string, unknown>, type: string): boolean {
  const c = arrAt(status, 'conditions').find((x) => isObj(x) && x.type === type);
  return isObj(c) && c.status === 'True';
}

function jobCells(obj: KubeObject, now: Date): unknown[] {
  const spec = objAt(obj, 'spec') ?? {};
  const status = objAt(obj, 'status') ?? {};
  const succeeded = int(status.succeeded);
  let completions: string;
  if (typeof spec.completions === 'number') completions = `${succeeded}/${spec.completions}`;
  else completions = int(spec.parallelism) > 1 ? `${succeeded}/1 of ${int(spec.parallelism)}` : `${succeeded}/1`;
  let duration = '';
  const start = Date.parse(str(status.startTime));
  if (!Number.isNaN(start)) {
    const end = Date.parse(str(status.completionTime));
    duration = humanDuration((Number.isNaN(end) ? now.getTime() : end) - start);
  }
  let state = 'Running';
  if (hasCondition(status, 'Complete')) state = 'Complete';
  else if (hasCondition(status, 'Failed')) state = 'Failed';
  else if (obj.metadata?.deletionTimestamp) state = 'Terminating';
  else if (hasCondition(status, 'Suspended')) state = 'Suspended';
  else if (hasCondition(status, 'FailureTarget')) state = 'FailureTarget';
  const [names, images] = containerCells(objAt(objAt(spec, 'template'), 'spec'));
  return [str(obj.metadata?.name), state, completions, duration, age(obj, now), names, images, selectorString(spec.selector) || '<none>'];
}

export function jobKind(): KindDefinition {
  return {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    listKind: 'JobList',
    resource: 'jobs',
    singular: 'job',
    namespaced: true,
    shortNames: [],
    categories: ['all'],
    storage: { group: 'batch', resource: 'jobs' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.batch.v1.Job',
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        obj.status = {};
        generateJobSelector(obj);
      },
      validate,
    },
    selectableFields(obj) {
      return { 'status.successful': String(int(objAt(obj, 'status')?.succeeded)) };
    },
    table: {
      columns: [
        nameColumn(),
        column('Status', 'string', 'Status of the job.'),
        column('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
        column('Duration', 'string', 'Time required to complete the job.'),
        ageColumn(),
        ...containerColumns(true),
      ],
      cells: jobCells,
    },
    // kube keeps orphaning as batch/v1's default for jobs, for backward compatibility
    defaultGarbageCollectionPolicy: 'Orphan',
  };
}
