/**
 * kube's NamingConditionController.calculateNamesAndConditions: which of a CRD's requested names it
 * may have, given the names already accepted for other CRDs of its group (and, here, the group's
 * built-in resources, which kube's handler chain would shadow), and the NamesAccepted and
 * Established conditions that follow. A name the CRD already has stays accepted.
 */
import type { KubeObject } from '../kind';
import type { Condition, Names } from './types';
import { isObject, specOf, statusOf } from './types';
import { findCondition } from './conditions';

export interface UsedNames {
  /** plurals, singulars and short names */
  resources: Set<string>;
  /** kinds and list kinds */
  kinds: Set<string>;
}

export interface NamingResult {
  acceptedNames: Names;
  namesAccepted: Omit<Condition, 'lastTransitionTime'>;
  established: Omit<Condition, 'lastTransitionTime'>;
}

function fresh(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if ((requested ?? '') === (accepted ?? '')) return undefined;
  if (!used.has(requested ?? '')) return undefined;
  return `"${requested ?? ''}" is already in use`;
}

export function calculateNames(crd: KubeObject, used: UsedNames): NamingResult {
  const requested: Names = isObject(specOf(crd).names) ? specOf(crd).names! : {};
  const accepted: Names = isObject(statusOf(crd).acceptedNames) ? statusOf(crd).acceptedNames! : {};
  const next: Names = { ...accepted };
  let cond: Omit<Condition, 'lastTransitionTime'> = { type: 'NamesAccepted', status: 'Unknown' };
  const conflict = (reason: string, message: string) => {
    cond = { type: 'NamesAccepted', status: 'False', reason, message };
  };
  let err = fresh(requested.plural, accepted.plural, used.resources);
  if (err) conflict('PluralConflict', err);
  else next.plural = requested.plural;
  err = fresh(requested.singular, accepted.singular, used.resources);
  if (err) conflict('SingularConflict', err);
  else next.singular = requested.singular;
  const wantShort = Array.isArray(requested.shortNames) ? requested.shortNames : [];
  const haveShort = Array.isArray(accepted.shortNames) ? accepted.shortNames : [];
  if (JSON.stringify(wantShort) !== JSON.stringify(haveShort)) {
    const errs = wantShort.filter((s) => !haveShort.includes(s)).map((s) => fresh(s, '', used.resources)).filter((e): e is string => !!e);
    if (errs.length) conflict('ShortNamesConflict', errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    else next.shortNames = requested.shortNames;
  }
  err = fresh(requested.kind, accepted.kind, used.kinds);
  if (err) conflict('KindConflict', err);
  else next.kind = requested.kind;
  err = fresh(requested.listKind, accepted.listKind, used.kinds);
  if (err) conflict('ListKindConflict', err);
  else next.listKind = requested.listKind;
  next.categories = requested.categories;
  if (next.categories === undefined) delete next.categories;
  if (next.shortNames === undefined) delete next.shortNames;
  if (cond.status === 'Unknown') cond = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  const old = findCondition(crd, 'Established');
  let established: Omit<Condition, 'lastTransitionTime'> = old
    ? { type: 'Established', status: old.status, reason: old.reason, message: old.message }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && cond.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: next, namesAccepted: cond, established };
}

/** the names a CRD holds, for the others of its group */
export function addAcceptedNames(used: UsedNames, crd: KubeObject): void {
  const a: Names = isObject(statusOf(crd).acceptedNames) ? statusOf(crd).acceptedNames! : {};
  for (const n of [a.plural, a.singular, ...(Array.isArray(a.shortNames) ? a.shortNames : [])]) if (n) used.resources.add(n);
  for (const n of [a.kind, a.listKind]) if (n) used.kinds.add(n);
}
