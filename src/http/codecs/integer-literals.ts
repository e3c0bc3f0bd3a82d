/**
 * JSON.parse reads `1e-400` as 0 and `2.0` as 2, so a check of the parsed value cannot see that an
 * integer field was written as a float literal. kube's decoder refuses those ("cannot unmarshal
 * number 1e-400 into Go struct field DeploymentSpec.spec.replicas of type int32"); the JSON codec
 * hands the literals it saw to this check, which looks each one up in the kind's schema.
 */
import { errors } from '../../api/errors';
import type { KindDefinition } from '../../api/kind';
import { definitions } from '../../schema';
import { deref, goType, locate } from '../../schema/schema-path';

/** a number literal with a fraction or exponent whose value is an integer, and where it stands */
export interface IntegralFloatLiteral {
  segments: string[];
  literal: string;
}

/** 400 BadRequest, as kube's decoding error, for the first literal that stands in an integer field */
export function rejectFloatLiteralsInIntegerFields(kind: KindDefinition, value: unknown, literals: IntegralFloatLiteral[]): void {
  if (!definitions[kind.schemaName]) return;
  for (const { segments, literal } of literals) {
    const loc = locate(definitions, kind.schemaName, value, segments);
    if (!loc.node || deref(definitions, loc.node).node.type !== 'integer') continue;
    const where = loc.goPath ? `Go struct field ${loc.struct}.${loc.goPath}` : 'Go value';
    throw errors.badRequest(
      `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: json: cannot unmarshal number ${literal} into ${where} of type ${goType(definitions, loc.node)}`,
    );
  }
}
