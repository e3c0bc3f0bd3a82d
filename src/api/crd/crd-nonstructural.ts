/**
 * kube's NonStructuralSchema condition controller: a CRD that keeps unknown fields
 * (spec.preserveUnknownFields) or has a schema that is not structural (possible with v1beta1)
 * carries NonStructuralSchema True with reason Violations and the problems; the condition goes
 * away when they are fixed.
 */
import type { KubeObject } from '../kind';
import type { Condition, JSONSchemaProps } from './types';
import { isObject, specOf } from './types';
import { newStructural, StructuralError } from './schema/structural';
import { validateStructural } from './schema/structural-validation';

/** the condition the CRD should carry, or undefined for none */
export function nonStructuralCondition(crd: KubeObject): Omit<Condition, 'lastTransitionTime'> | undefined {
  const spec = specOf(crd);
  const errors: string[] = [];
  if (spec.preserveUnknownFields === true) errors.push('spec.preserveUnknownFields: Invalid value: true: must be false');
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  for (let i = 0; i < versions.length; i++) {
    const v = versions[i];
    const schema = isObject(v) && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObject(schema)) continue;
    try {
      const s = newStructural(schema as JSONSchemaProps);
      for (const c of validateStructural(`spec.versions[${i}].schema.openAPIV3Schema`, s)) errors.push(`${c.field}: ${c.message}`);
    } catch (err) {
      if (!(err instanceof StructuralError)) throw err;
      return { type: 'NonStructuralSchema', status: 'Unknown', reason: 'StructuralError', message: `failed to check validation schema for version ${v.name}: ${err.message}` };
    }
  }
  if (errors.length === 0) return undefined;
  return { type: 'NonStructuralSchema', status: 'True', reason: 'Violations', message: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}
