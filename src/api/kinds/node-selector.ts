/**
 * kube's ValidateNodeSelector (core/v1 NodeSelector: terms of label and field requirements), used
 * by PersistentVolume node affinity; `field` is the selector's path (`spec.nodeAffinity.required`).
 */
import type { StatusCause } from '../errors';
import { forbidden, invalid, required } from '../validation/field-errors';
import { isDNS1123Subdomain, isQualifiedName } from '../validation/names';
import { arrAt, isObj, str } from './util';

function validateLabelRequirement(req: unknown, field: string): StatusCause[] {
  const r = isObj(req) ? req : {};
  const causes: StatusCause[] = [];
  const values = arrAt(r, 'values');
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) causes.push(required(`${field}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) causes.push(forbidden(`${field}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) causes.push(required(`${field}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      causes.push(invalid(`${field}.operator`, r.operator ?? '', 'not a valid selector operator'));
  }
  for (const msg of isQualifiedName(str(r.key))) causes.push(invalid(`${field}.key`, str(r.key), msg));
  return causes;
}

/** node field selectors know one field, metadata.name, and one value per In / NotIn term */
function validateFieldRequirement(req: unknown, field: string): StatusCause[] {
  const r = isObj(req) ? req : {};
  const causes: StatusCause[] = [];
  const values = arrAt(r, 'values');
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length !== 1) causes.push(required(`${field}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    causes.push(invalid(`${field}.operator`, r.operator ?? '', 'not a valid selector operator'));
  }
  if (r.key !== 'metadata.name') {
    causes.push(invalid(`${field}.key`, str(r.key), 'not a valid field selector key'));
  } else {
    values.forEach((v, i) => {
      for (const msg of isDNS1123Subdomain(str(v))) causes.push(invalid(`${field}.values[${i}]`, v, msg));
    });
  }
  return causes;
}

export function validateNodeSelector(selector: unknown, field: string): StatusCause[] {
  const terms = arrAt(selector, 'nodeSelectorTerms');
  if (terms.length === 0) return [required(`${field}.nodeSelectorTerms`, 'must have at least one node selector term')];
  const causes: StatusCause[] = [];
  terms.forEach((term, i) => {
    const p = `${field}.nodeSelectorTerms[${i}]`;
    arrAt(term, 'matchExpressions').forEach((r, j) => causes.push(...validateLabelRequirement(r, `${p}.matchExpressions[${j}]`)));
    arrAt(term, 'matchFields').forEach((r, j) => causes.push(...validateFieldRequirement(r, `${p}.matchFields[${j}]`)));
  });
  return causes;
}
