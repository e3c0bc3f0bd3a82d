/**
 * kube's ValidatePodUpdate: a pod's spec is fixed once created, except container images,
 * activeDeadlineSeconds (set or lowered), added tolerations, removed scheduling gates and a negative
 * terminationGracePeriodSeconds raised to 1.
 */
import type { StatusCause } from '../../errors';
import { forbidden, invalid } from '../../validation/field-errors';
import { arrAt, clone, isObj, objAt } from '../util';
import type { Obj } from '../util';
import { jsonEqual } from '../../json-value';

const MESSAGE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,' +
  '`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** the names of the top-level spec fields that differ, for the message's diff part */
function diffFields(a: Obj, b: Obj): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => !jsonEqual(a[k], b[k])).sort();
}

export function validatePodUpdate(pod: Obj, old: Obj): StatusCause[] {
  const spec = objAt(pod, 'spec') ?? {};
  const oldSpec = objAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];

  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (typeof ads !== 'number' || ads < 0 || ads > 2147483647) {
      return [invalid('spec.activeDeadlineSeconds', ads, 'must be between 0 and 2147483647, inclusive')];
    }
    if (typeof oldAds === 'number' && oldAds < ads) {
      return [invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value')];
    }
  } else if (oldAds !== undefined && oldAds !== null) {
    causes.push(invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }

  // compare everything else: copy the mutable fields from old into a clone of the new spec
  const mutated = clone(spec);
  for (const key of ['containers', 'initContainers']) {
    const oldContainers = arrAt(oldSpec, key);
    arrAt(mutated, key).forEach((c, i) => {
      if (isObj(c) && isObj(oldContainers[i])) c.image = oldContainers[i].image;
    });
  }
  mutated.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  const oldTolerations = arrAt(oldSpec, 'tolerations');
  const newTolerations = arrAt(spec, 'tolerations');
  if (oldTolerations.every((t) => newTolerations.some((n) => jsonEqual(n, t)))) mutated.tolerations = oldSpec.tolerations;
  const oldGates = arrAt(oldSpec, 'schedulingGates');
  const newGates = arrAt(spec, 'schedulingGates');
  if (newGates.every((g) => oldGates.some((o) => jsonEqual(o, g)))) mutated.schedulingGates = oldSpec.schedulingGates;
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && spec.terminationGracePeriodSeconds === 1) {
    mutated.terminationGracePeriodSeconds = oldGrace;
  }
  for (const k of Object.keys(mutated)) if (mutated[k] === undefined) delete mutated[k];
  if (!jsonEqual(mutated, oldSpec)) {
    const changed = diffFields(mutated, oldSpec).map((k) => `spec.${k}`);
    causes.push(forbidden('spec', `${MESSAGE}\n  changed: ${changed.join(', ')}`));
  }
  return causes;
}
