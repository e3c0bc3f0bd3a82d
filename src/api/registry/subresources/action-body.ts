/**
 * What an action subresource does with its body before acting (kube's create handler for a
 * subresource REST): the decoder's schema check of the body's own kind (400 for wrong types,
 * unknown fields per fieldValidation), the namespace filled from the URL or refused when it differs,
 * and the name matched against the URL (`name in URL does not match name in <Kind> object`).
 */
import { errors } from '../../errors';
import type { KubeObject } from '../../kind';
import { definitionName } from '../../../schema/definition-name';
import { parseApiVersion } from '../../scheme';
import type { RegistryContext } from '../context';
import { ensureNamespace, metaOf } from '../meta';
import { checkSchemaOf } from '../schema-check';
import type { Target, WriteOptions } from '../types';

export interface ActionBody {
  obj: KubeObject;
  warnings: string[];
}

export function checkActionBody(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): ActionBody {
  const obj = structuredClone(body);
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const gv = parseApiVersion(apiVersion);
  const warnings = checkSchemaOf(ctx, definitionName(gv.group, gv.version, kind), { kind, version: gv.version }, obj, options.fieldValidation, options.strictDecodingErrors);
  ensureNamespace(target.kind, metaOf(obj), target.namespace);
  if ((obj.metadata?.name ?? '') !== (target.name ?? '')) throw errors.badRequest(`name in URL does not match name in ${kind} object`);
  return { obj, warnings };
}

/** the answer of a successful action: kube's Success Status, code 201 as the create handler fills it */
export function successStatus(): KubeObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}
