/**
 * The scale subresource: an autoscaling/v1 Scale view of a kind with replicas. Writes (PUT, and
 * json/merge/strategic patches applied to the Scale) set spec.replicas on the parent and go through
 * the parent's normal update: precondition (the Scale's resourceVersion when given), validation,
 * generation bump.
 */
import { errors } from '../errors';
import type { KindDefinition, KubeObject, ScaleDefinition } from '../kind';
import type { GetOptions, PatchType, Target, WriteOptions, WriteResult } from './types';
import type { Current, RegistryContext } from './context';
import { readCurrent, requireName } from './context';
import { clone } from './codec';
import { get } from './get';
import { guaranteedUpdate } from './guaranteed-update';
import { checkPatchType, patchObject } from './patch';
import { prepareUpdate, checkName } from './update';
import { checkSchemaOf } from './schema-check';
import { trackWrite } from './managed';

const SCALE_API_VERSION = 'autoscaling/v1';
const SCALE_SCHEMA = 'io.k8s.api.autoscaling.v1.Scale';

function scaleOf(kind: KindDefinition): ScaleDefinition {
  if (!kind.scale) throw errors.notFound({ group: kind.group, resource: `${kind.resource}/scale` }, '');
  return kind.scale;
}

/** the Scale view of a parent object */
export function toScale(kind: KindDefinition, obj: KubeObject): KubeObject {
  const scale = scaleOf(kind);
  const m = obj.metadata ?? {};
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  metadata.uid = m.uid;
  if (m.resourceVersion) metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp;
  return {
    apiVersion: SCALE_API_VERSION,
    kind: 'Scale',
    metadata,
    spec: { replicas: scale.getSpecReplicas(obj) },
    status: { replicas: scale.getStatusReplicas(obj), selector: scale.getSelector(obj) },
  };
}

export async function getScale(ctx: RegistryContext, target: Target, options: GetOptions): Promise<KubeObject> {
  scaleOf(target.kind);
  return toScale(target.kind, await get(ctx, target, options));
}

/** kube's ValidateScale: replicas must be a non-negative integer (422 Scale.autoscaling) */
function desiredReplicas(scale: KubeObject): number {
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw errors.badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  if (replicas < 0) {
    throw errors.invalid('Scale', 'autoscaling', scale.metadata?.name ?? '', [
      { reason: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0`, field: 'spec.replicas' },
    ]);
  }
  return replicas;
}

function checkScaleBody(body: unknown): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the body of the request must be a JSON object');
  const scale = clone(body as KubeObject);
  if (scale.apiVersion && scale.apiVersion !== SCALE_API_VERSION) {
    throw errors.badRequest(`the API version in the data (${String(scale.apiVersion)}) does not match the expected API version (${SCALE_API_VERSION})`);
  }
  if (scale.kind && scale.kind !== 'Scale') throw errors.badRequest(`the kind in the data (${String(scale.kind)}) does not match the expected kind (Scale)`);
  return scale;
}

/** the parent after applying the Scale: spec.replicas set, then the main-resource update rules */
function applyScale(ctx: RegistryContext, kind: KindDefinition, scale: KubeObject, current: Current): KubeObject {
  const replicas = desiredReplicas(scale);
  const parent = clone(current.obj);
  // the Scale's resourceVersion, when given, is the precondition on the parent
  parent.metadata = { ...parent.metadata, resourceVersion: scale.metadata?.resourceVersion ?? '' };
  scaleOf(kind).setSpecReplicas(parent, replicas);
  return prepareUpdate(ctx, kind, parent, current);
}

export async function updateScale(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
  const { kind } = target;
  scaleOf(kind);
  const name = requireName(target);
  const scale = checkScaleBody(body);
  checkSchemaOf(ctx, SCALE_SCHEMA, { kind: 'Scale', version: 'v1' }, scale, options.fieldValidation, options.strictDecodingErrors);
  checkName(scale, name);
  const result = await guaranteedUpdate(ctx, {
    target,
    dryRun: options.dryRun,
    compute: (current) => trackWrite(ctx, kind, current.obj, applyScale(ctx, kind, scale, current), options, 'scale'),
    admission: { subresource: 'scale', options },
  });
  return { ...result, object: toScale(kind, result.object) };
}

export async function patchScale(
  ctx: RegistryContext,
  target: Target,
  type: PatchType,
  body: string,
  options: WriteOptions & { force?: boolean },
): Promise<WriteResult> {
  const { kind } = target;
  scaleOf(kind);
  const name = requireName(target);
  checkPatchType(kind, type);
  if (type === 'apply') throw errors.unsupportedMediaType('application/apply-patch+yaml');
  await readCurrent(ctx, target); // 404 before parsing the patch, as kube
  const result = await guaranteedUpdate(ctx, {
    target,
    dryRun: options.dryRun,
    compute: (current) => {
      const scale = checkScaleBody(patchObject(ctx, type, toScale(kind, current.obj), body, SCALE_SCHEMA));
      checkSchemaOf(ctx, SCALE_SCHEMA, { kind: 'Scale', version: 'v1' }, scale, options.fieldValidation, options.strictDecodingErrors);
      checkName(scale, name);
      return trackWrite(ctx, kind, current.obj, applyScale(ctx, kind, scale, current), options, 'scale');
    },
    admission: { subresource: 'scale', options, optionsKind: 'PatchOptions' },
  });
  return { ...result, object: toScale(kind, result.object) };
}
