/**
 * The decoder's view of a review body, as kube's create handler applies it before the review REST
 * sees the object: wrong JSON types are a 400; unknown fields follow fieldValidation (Strict: 400
 * `strict decoding error: unknown field "spec.x"`; Warn, the default: warnings; Ignore: nothing),
 * and are dropped either way because typed decoding never keeps them.
 */
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { WriteOptions } from '../registry/types';
import { createSchemaValidator } from '../../schema/validator';
import type { SchemaValidator } from '../../schema/validator';
import type { Definitions } from '../../schema/types';

export class ReviewSchema {
  readonly #definitions: Definitions;
  #validator: SchemaValidator | undefined;

  constructor(definitions: Definitions) {
    this.#definitions = definitions;
  }

  /** check obj in place (unknown fields removed); returns the warnings of the response */
  check(kind: KindDefinition, obj: KubeObject, options: WriteOptions): string[] {
    if (!this.#definitions[kind.schemaName]) return [];
    // compiled on first use: most servers never see a review
    const validator = (this.#validator ??= createSchemaValidator(this.#definitions));
    const typeIssue = validator.validate(kind.schemaName, obj).find((i) => i.type === 'type');
    if (typeIssue) {
      throw errors.badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${typeIssue.message}`);
    }
    const unknown = validator.unknownFields(kind.schemaName, obj);
    // duplicate fields found by the JSON/YAML codecs come first, in one list with the unknown fields
    const decodeErrors = (options as WriteOptions & { strictDecodingErrors?: string[] }).strictDecodingErrors ?? [];
    const texts = [...decodeErrors, ...unknown.map((f) => `unknown field "${f}"`)];
    if (texts.length === 0) return [];
    if (options.fieldValidation === 'Strict') throw errors.badRequest(`strict decoding error: ${texts.join(', ')}`);
    for (const path of unknown) dropField(obj, path);
    return options.fieldValidation === 'Ignore' ? [] : texts;
  }
}

/** delete the field at a kube field path (`spec.resourceAttributes.x`, `a.b[0].c`) */
function dropField(obj: unknown, path: string): void {
  const steps = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
  let node: unknown = obj;
  for (const step of steps.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string | number, unknown>)[step];
  }
  const last = steps[steps.length - 1];
  if (typeof last === 'string' && node !== null && typeof node === 'object' && !Array.isArray(node)) {
    delete (node as Record<string, unknown>)[last];
  }
}
