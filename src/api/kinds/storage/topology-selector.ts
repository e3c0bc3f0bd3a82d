/**
 * kube's validation of StorageClass.allowedTopologies (ValidateTopologySelectorTerm per term, then
 * duplicate terms). kube compares each term with a list that starts with one empty entry per term,
 * so a term without expressions is always reported as a duplicate: reproduced.
 */
import type { StatusCause } from '../../errors';
import { jsonEqual } from '../../json-value';
import { duplicate, invalid, required } from '../../validation/field-errors';
import { isQualifiedName } from '../../validation/names';
import { arrAt, isObj, str } from '../util';

/** one term: its key -> sorted values map (kube's exprMap) and its causes */
function validateTerm(term: unknown, p: string): { exprs: Record<string, string[]>; causes: StatusCause[] } {
  const exprs: Record<string, string[]> = {};
  const causes: StatusCause[] = [];
  arrAt(term, 'matchLabelExpressions').forEach((raw, i) => {
    const req = isObj(raw) ? raw : {};
    const rp = `${p}.matchLabelExpressions[${i}]`;
    const values = arrAt(req, 'values').map(str);
    if (values.length === 0) causes.push(required(`${rp}.values`, ''));
    const seen = new Set<string>();
    values.forEach((v, j) => {
      if (seen.has(v)) causes.push(duplicate(`${rp}.values[${j}]`, v));
      seen.add(v);
    });
    const key = str(req.key);
    for (const msg of isQualifiedName(key)) causes.push(invalid(`${rp}.key`, key, msg));
    if (key in exprs) causes.push(duplicate(`${rp}.key`, key));
    exprs[key] = [...seen].sort();
  });
  return { exprs, causes };
}

export function validateAllowedTopologies(terms: unknown[], field: string): StatusCause[] {
  if (terms.length === 0) return [];
  const causes: StatusCause[] = [];
  // kube's make(..., len) followed by append: one empty map per term comes first
  const previous: Array<Record<string, string[]>> = terms.map(() => ({}));
  terms.forEach((term, i) => {
    const p = `${field}[${i}]`;
    const { exprs, causes: termCauses } = validateTerm(term, p);
    causes.push(...termCauses);
    for (const prev of previous) if (jsonEqual(exprs, prev)) causes.push(duplicate(`${p}.matchLabelExpressions`, ''));
    previous.push(exprs);
  });
  return causes;
}
