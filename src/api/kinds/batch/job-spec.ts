/** batch/v1 JobSpec rules shared by Job and CronJob's jobTemplate (kube's validateJobSpec) */
import type { StatusCause } from '../../errors';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { nonNegative, validatePodTemplate } from '../pod-template';
import { selectorMatches, validateLabelSelector } from '../label-selector';
import { isObj, objAt, stringMap } from '../util';
import type { Obj } from '../util';

const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

export function validateJobSpecCommon(spec: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [
    ...nonNegative(spec.parallelism, `${field}.parallelism`),
    ...nonNegative(spec.completions, `${field}.completions`),
    ...nonNegative(spec.activeDeadlineSeconds, `${field}.activeDeadlineSeconds`),
    ...nonNegative(spec.backoffLimit, `${field}.backoffLimit`),
    ...nonNegative(spec.ttlSecondsAfterFinished, `${field}.ttlSecondsAfterFinished`),
  ];
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== null && !COMPLETION_MODES.includes(String(mode))) {
    causes.push(notSupported(`${field}.completionMode`, mode, COMPLETION_MODES));
  }
  if (mode === 'Indexed' && (spec.completions === undefined || spec.completions === null)) {
    causes.push(required(`${field}.completions`, 'when completion mode is Indexed'));
  }
  const prp = spec.podReplacementPolicy;
  if (prp !== undefined && prp !== null && !REPLACEMENT_POLICIES.includes(String(prp))) {
    causes.push(notSupported(`${field}.podReplacementPolicy`, prp, REPLACEMENT_POLICIES));
  }
  causes.push(...validatePodTemplate(spec.template, `${field}.template`, { restartPolicies: ['OnFailure', 'Never'] }));
  return causes;
}

/** a Job's spec: the selector is required (generated unless manualSelector) and must match the template */
export function validateJobSpec(spec: Obj, field: string): StatusCause[] {
  const causes = validateJobSpecCommon(spec, field);
  const selector = spec.selector;
  if (selector === undefined || selector === null) causes.push(required(`${field}.selector`, ''));
  else causes.push(...validateLabelSelector(selector, `${field}.selector`));
  const labels = stringMap(objAt(objAt(spec, 'template'), 'metadata')?.labels);
  if (isObj(selector) && !selectorMatches(selector, labels)) {
    causes.push(invalid(`${field}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  return causes;
}
