/**
 * kube's validation of webhook configurations (pkg/apis/admissionregistration/validation): webhook
 * names fully qualified (and, in v1, unique), rules, policies, side effects (v1: None or
 * NoneOnDryRun), timeouts, selectors, client config, admission review versions and match
 * conditions. On update the v1-only rules are waived when the old object already broke them, as
 * kube does so that old objects stay writable.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { duplicate, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../validation/names';
import { validateLabelSelector } from '../label-selector';
import { arrAt, isObj, num, str } from '../util';
import { validateClientConfig } from './webhook-client';
import { validateRuleWithOperations } from './webhook-rules';
import type { WebhookVersion } from './webhook-defaults';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
}

/** kube's IsFullyQualifiedName */
function validateHookName(name: string, field: string): StatusCause[] {
  if (name === '') return [required(field)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [invalid(field, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateReviewVersions(versions: unknown[], requireRecognized: boolean, field: string): StatusCause[] {
  if (versions.length === 0) return [required(field, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  versions.forEach((raw, i) => {
    const v = str(raw);
    if (seen.has(v)) {
      causes.push(invalid(`${field}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) causes.push(invalid(`${field}[${i}]`, v, msg));
  });
  if (requireRecognized && !versions.some((v) => REVIEW_VERSIONS.includes(str(v)))) {
    causes.push(invalid(field, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  }
  return causes;
}

function validateMatchConditions(conditions: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (conditions.length > 64) causes.push({ reason: 'FieldValueTooMany', message: `Too many: ${conditions.length}: must have at most 64 items`, field });
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const cond = isObj(c) ? c : {};
    const name = str(cond.name);
    const p = `${field}[${i}]`;
    if (name === '') causes.push(required(`${p}.name`));
    else for (const msg of isQualifiedName(name)) causes.push(invalid(`${p}.name`, name, msg));
    if (name !== '' && names.has(name)) causes.push(duplicate(`${p}.name`, name));
    names.add(name);
    if (str(cond.expression) === '') causes.push(required(`${p}.expression`));
  });
  return causes;
}

function validateHook(hook: Record<string, unknown>, mutating: boolean, opts: Options, field: string): StatusCause[] {
  const causes = validateHookName(str(hook.name), `${field}.name`);
  arrAt(hook, 'rules').forEach((r, i) => causes.push(...validateRuleWithOperations(r, `${field}.rules[${i}]`)));
  const isSet = (v: unknown): boolean => v !== undefined && v !== null;
  if (isSet(hook.failurePolicy) && !FAILURE_POLICIES.includes(str(hook.failurePolicy))) causes.push(notSupported(`${field}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  if (isSet(hook.matchPolicy) && !MATCH_POLICIES.includes(str(hook.matchPolicy))) causes.push(notSupported(`${field}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : SIDE_EFFECTS;
  if (!isSet(hook.sideEffects)) causes.push(required(`${field}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(str(hook.sideEffects))) causes.push(notSupported(`${field}.sideEffects`, hook.sideEffects, allowedSideEffects));
  const timeout = num(hook.timeoutSeconds);
  if (timeout !== undefined && (timeout > 30 || timeout < 1)) causes.push(invalid(`${field}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  causes.push(...validateLabelSelector(hook.namespaceSelector, `${field}.namespaceSelector`));
  causes.push(...validateLabelSelector(hook.objectSelector, `${field}.objectSelector`));
  if (mutating && isSet(hook.reinvocationPolicy) && !REINVOCATION.includes(str(hook.reinvocationPolicy))) {
    causes.push(notSupported(`${field}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION));
  }
  causes.push(...validateClientConfig(hook.clientConfig, `${field}.clientConfig`));
  causes.push(...validateMatchConditions(arrAt(hook, 'matchConditions'), `${field}.matchConditions`));
  return causes;
}

const hooksOf = (obj: KubeObject | undefined): Record<string, unknown>[] => arrAt(obj, 'webhooks').map((h) => (isObj(h) ? h : {}));

function options(version: WebhookVersion, old: KubeObject | undefined): Options {
  const v1 = version === 'v1';
  if (!old) return { requireNoSideEffects: v1, requireRecognizedReviewVersion: true, requireUniqueNames: v1 };
  const oldHooks = hooksOf(old);
  const names = oldHooks.map((h) => str(h.name));
  return {
    requireNoSideEffects: v1 && oldHooks.every((h) => NO_SIDE_EFFECTS.includes(str(h.sideEffects))),
    requireRecognizedReviewVersion: oldHooks.every((h) => arrAt(h, 'admissionReviewVersions').some((v) => REVIEW_VERSIONS.includes(str(v)))),
    requireUniqueNames: v1 && new Set(names).size === names.length,
  };
}

export function validateConfiguration(obj: KubeObject, version: WebhookVersion, mutating: boolean, old?: KubeObject): StatusCause[] {
  const opts = options(version, old);
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  hooksOf(obj).forEach((hook, i) => {
    const field = `webhooks[${i}]`;
    causes.push(...validateHook(hook, mutating, opts, field));
    causes.push(...validateReviewVersions(arrAt(hook, 'admissionReviewVersions'), opts.requireRecognizedReviewVersion, `${field}.admissionReviewVersions`));
    const name = str(hook.name);
    if (opts.requireUniqueNames && name !== '') {
      if (names.has(name)) causes.push(duplicate(`${field}.name`, name));
      names.add(name);
    }
  });
  return causes;
}
