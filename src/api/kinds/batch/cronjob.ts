/**
 * CronJob, served as batch/v1, batch/v1beta1 and (alpha, off by default) batch/v2alpha1 over one
 * storage location (batch/cronjobs, stored as v1). v1 and v1beta1 have the same fields, so
 * conversion only changes apiVersion; v2alpha1 (kube 1.20's) lacks spec.timeZone and
 * status.lastSuccessfulTime, which it keeps in an annotation (preserved-fields.ts).
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { validateLabelSelector } from '../label-selector';
import { defaultTemplateIn, nonNegative } from '../pod-template';
import { age, ageColumn, column, containerCells, containerColumns, nameColumn, since } from '../table-format';
import { arrAt, clone, ensureObj, objAt, setDefault, str } from '../util';
import { restoreFields, stashFields } from '../preserved-fields';
import { selectorString } from '../label-selector';
import { cronScheduleError, isValidTimeZone } from './cron-schedule';
import { validateJobSpecCommon } from './job-spec';

const CONCURRENCY = ['Allow', 'Forbid', 'Replace'];

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  setDefault(spec, 'suspend', false);
  // explicit zeros are kept: only unset limits get defaults
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = ensureObj(spec, 'jobTemplate');
  const jmeta = ensureObj(jobTemplate, 'metadata');
  if (!('creationTimestamp' in jmeta)) jmeta.creationTimestamp = null;
  defaultTemplateIn(ensureObj(jobTemplate, 'spec'));
}

function validateSchedule(spec: Record<string, unknown>, old: Record<string, unknown> | undefined): StatusCause[] {
  const schedule = spec.schedule;
  if (typeof schedule !== 'string' || schedule.length === 0) return [required('spec.schedule', '')];
  const causes: StatusCause[] = [];
  const err = cronScheduleError(schedule);
  if (err) causes.push(invalid('spec.schedule', schedule, err));
  if (schedule.includes('TZ')) {
    if (spec.timeZone !== undefined && spec.timeZone !== null) {
      causes.push(invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!old || !str(old.schedule).includes('TZ')) {
      // kube accepts a TZ prefix only on objects that already had one
      causes.push(invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    }
  }
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes = validateSchedule(spec, old ? objAt(old, 'spec') : undefined);
  const tz = spec.timeZone;
  if (tz !== undefined && tz !== null) {
    if (typeof tz !== 'string' || tz.length === 0) causes.push(invalid('spec.timeZone', tz, 'timeZone must be nil or non-empty string'));
    else if (tz.toLowerCase() === 'local') causes.push(invalid('spec.timeZone', tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
    else if (!isValidTimeZone(tz)) causes.push(invalid('spec.timeZone', tz, `unknown time zone ${tz}`));
  }
  const cp = spec.concurrencyPolicy;
  if (!cp) causes.push(required('spec.concurrencyPolicy', ''));
  else if (!CONCURRENCY.includes(str(cp))) causes.push(notSupported('spec.concurrencyPolicy', cp, CONCURRENCY));
  causes.push(
    ...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'),
    ...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'),
    ...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'),
  );
  const jobSpec = objAt(objAt(spec, 'jobTemplate'), 'spec');
  if (!jobSpec) {
    causes.push(required('spec.jobTemplate.spec', ''));
  } else {
    causes.push(...validateJobSpecCommon(jobSpec, 'spec.jobTemplate.spec'));
    // kube: the jobs a CronJob creates always get generated selectors
    if (jobSpec.selector !== undefined && jobSpec.selector !== null) {
      causes.push(...validateLabelSelector(jobSpec.selector, 'spec.jobTemplate.spec.selector'));
      causes.push(invalid('spec.jobTemplate.spec.selector', jobSpec.selector, '`selector` will be auto-generated'));
    }
    if (jobSpec.manualSelector === true) causes.push(notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  }
  return causes;
}

function printBool(v: unknown): string {
  return v === true ? 'True' : v === false ? 'False' : '<unset>';
}

function cronJobCells(obj: KubeObject, now: Date): unknown[] {
  const spec = objAt(obj, 'spec') ?? {};
  const status = objAt(obj, 'status') ?? {};
  const jobSpec = objAt(objAt(spec, 'jobTemplate'), 'spec');
  const [names, images] = containerCells(objAt(objAt(jobSpec, 'template'), 'spec'));
  const last = status.lastScheduleTime ? since(status.lastScheduleTime, now) : '<none>';
  const tz = typeof spec.timeZone === 'string' ? spec.timeZone : '<none>';
  return [
    str(obj.metadata?.name),
    str(spec.schedule),
    tz,
    printBool(spec.suspend),
    arrAt(status, 'active').length,
    last,
    age(obj, now),
    names,
    images,
    selectorString(jobSpec?.selector) || '<none>',
  ];
}

function withApiVersion(obj: KubeObject, apiVersion: string): KubeObject {
  const out = clone(obj);
  out.apiVersion = apiVersion;
  return out;
}

/** what batch/v2alpha1 has no field for */
const NOT_IN_V2ALPHA1 = ['spec.timeZone', 'status.lastSuccessfulTime'];

export function cronJobKind(version: 'v1' | 'v1beta1' | 'v2alpha1'): KindDefinition {
  const apiVersion = `batch/${version}`;
  const alpha = version === 'v2alpha1';
  const toV1 = (obj: KubeObject): KubeObject => {
    const out = withApiVersion(obj, 'batch/v1');
    if (alpha) restoreFields(out, NOT_IN_V2ALPHA1);
    return out;
  };
  return {
    group: 'batch',
    version,
    kind: 'CronJob',
    listKind: 'CronJobList',
    resource: 'cronjobs',
    singular: 'cronjob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    storage: { group: 'batch', resource: 'cronjobs' },
    storageVersion: 'v1',
    fromStorage(obj) {
      const out = withApiVersion(obj, apiVersion);
      if (alpha) stashFields(out, NOT_IN_V2ALPHA1);
      return out;
    },
    toStorage: toV1,
    schemaName: `io.k8s.api.batch.${version}.CronJob`,
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        obj.status = {};
      },
      // v2alpha1 is checked in its v1 form, so the fields it keeps aside are checked too
      validate: alpha ? (obj, old) => validate(toV1(obj), old && toV1(old)) : validate,
    },
    table: {
      columns: [
        nameColumn(),
        column('Schedule', 'string', 'The schedule in Cron format.'),
        column('Timezone', 'string', 'The time zone name for the given schedule.'),
        column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions.'),
        column('Active', 'integer', 'A list of pointers to currently running jobs.'),
        column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
        ageColumn(),
        ...containerColumns(true),
      ],
      cells: alpha ? (obj, now) => cronJobCells(toV1(obj), now) : cronJobCells,
    },
    // kube orphans by default for the earlier versions only
    defaultGarbageCollectionPolicy: version === 'v1' ? 'Background' : 'Orphan',
  };
}

