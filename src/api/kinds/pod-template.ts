/**
 * PodTemplateSpec handling shared by Deployment, DaemonSet, ReplicaSet, StatefulSet, Job and CronJob:
 * defaults, validation of the template's labels and spec, and the selector-matches-template rule.
 */
import type { StatusCause } from '../errors';
import { forbidden, invalid, required } from '../validation/field-errors';
import { validateAnnotations, validateLabels } from '../validation/object-meta';
import { isEmptySelector, selectorMatches, validateLabelSelector } from './label-selector';
import { defaultPodTemplate } from './pod-defaults';
import { validatePodSpec } from './pod-validation';
import { ensureObj, isObj, objAt, stringMap } from './util';
import type { Obj } from './util';

export { defaultPodSpec, defaultPodOnly, defaultPullPolicy, defaultPodTemplate } from './pod-defaults';
export { validatePodSpec, POD_RESTART_POLICIES } from './pod-validation';

export interface PodTemplateValidationOptions {
  restartPolicies: readonly string[];
  /** kube's controllers other than Job refuse activeDeadlineSeconds in templates */
  forbidActiveDeadlineSeconds?: string;
}

/** defaults the template at owner.spec.template (created if absent) */
export function defaultTemplateIn(spec: Obj): void {
  defaultPodTemplate(ensureObj(spec, 'template'));
}

export function validatePodTemplate(template: unknown, field: string, opts: PodTemplateValidationOptions): StatusCause[] {
  if (!isObj(template)) return [required(field, '')];
  const causes: StatusCause[] = [];
  const meta = objAt(template, 'metadata') ?? {};
  causes.push(...validateLabels(meta.labels, `${field}.metadata.labels`));
  causes.push(...validateAnnotations(meta.annotations, `${field}.metadata.annotations`));
  causes.push(...validatePodSpec(template.spec, `${field}.spec`, { restartPolicies: opts.restartPolicies }));
  const ads = objAt(template, 'spec')?.activeDeadlineSeconds;
  if (opts.forbidActiveDeadlineSeconds && ads !== undefined && ads !== null) {
    causes.push(forbidden(`${field}.spec.activeDeadlineSeconds`, opts.forbidActiveDeadlineSeconds));
  }
  return causes;
}

/**
 * apps/v1's selector rules: required, valid, not empty, and matching the template's labels, with
 * kube's messages (`empty selector is invalid for deployment`, `selector` does not match template `labels`).
 */
export function validateSelectorAndTemplate(spec: Obj, field: string, emptyMessage: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const selector = spec.selector;
  if (selector === undefined || selector === null) {
    causes.push(required(`${field}.selector`, ''));
  } else {
    causes.push(...validateLabelSelector(selector, `${field}.selector`));
    if (isEmptySelector(selector)) causes.push(invalid(`${field}.selector`, selector, emptyMessage));
  }
  const labels = stringMap(objAt(objAt(spec, 'template'), 'metadata')?.labels);
  if (isObj(selector) && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    causes.push(invalid(`${field}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  return causes;
}

/** kube's ValidateNonnegativeField for an optional integer */
export function nonNegative(value: unknown, field: string): StatusCause[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) return [invalid(field, value, 'must be an integer')];
  return value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
}
