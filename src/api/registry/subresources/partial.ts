/**
 * A `partial` subresource: GET answers the whole object; PUT and PATCH store the old object with
 * only the subresource's fields taken from what was written, as kube's per-subresource strategies
 * do (csrApprovalStrategy keeps everything but status.conditions; podEphemeralContainersStrategy
 * everything but spec.ephemeralContainers). Same resourceVersion preconditions as the resource;
 * generation is not bumped; managed fields record the subresource's name.
 */
import type { StatusCause } from '../../errors';
import { errors } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation';
import { serverSideApply } from '../apply';
import { clone } from '../codec';
import type { Current, RegistryContext } from '../context';
import { requireName, requireNamespace } from '../context';
import { withWarnings } from '../create';
import { get } from '../get';
import { guaranteedUpdate } from '../guaranteed-update';
import { trackWrite } from '../managed';
import { carryUpdateMeta } from '../meta';
import { patchWith } from '../patch';
import { checkPrecondition, checkWrittenObject } from '../update';
import type { SubresourceHandler } from './types';

export interface PartialSubresourceOptions {
  /** the subresource's name (`approval`), recorded in managed fields */
  name: string;
  /**
   * the object to store: a copy of `old` with the subresource's fields taken from `written`. The
   * metadata is then the written one, with system fields carried from `old` (kube's update rules).
   */
  merge(written: KubeObject, old: KubeObject): KubeObject;
  /**
   * where the new metadata comes from: the written object (the default, as csrApprovalStrategy) or
   * the stored one, keeping only the written resourceVersion and uid (podEphemeralContainersStrategy)
   */
  metadataFrom?: 'written' | 'stored';
  /** kube's validation of such an update (metadata rules are checked by the registry) */
  validate?(obj: KubeObject, old: KubeObject): StatusCause[];
}

export function partialSubresource(o: PartialSubresourceOptions): SubresourceHandler {
  const prepare = (ctx: RegistryContext, kind: KindDefinition, written: KubeObject, current: Current): KubeObject => {
    checkPrecondition(kind, written, current);
    const old = current.obj;
    const next = o.merge(written, clone(old));
    next.apiVersion = old.apiVersion;
    next.kind = old.kind;
    next.metadata = o.metadataFrom === 'stored' ? { ...clone(old.metadata), resourceVersion: written.metadata?.resourceVersion, uid: written.metadata?.uid ?? old.metadata?.uid } : written.metadata;
    carryUpdateMeta(next, old);
    kind.strategy.defaults(next);
    const causes = [
      ...validateObjectMeta(next.metadata, { namespaced: kind.namespaced, nameValidation: kind.nameValidation, isCreate: false }),
      ...validateObjectMetaUpdate(next.metadata, old.metadata),
      ...(o.validate ? o.validate(next, old) : []),
    ];
    if (causes.length) throw errors.invalid(kind.kind, kind.group, next.metadata?.name ?? '', causes);
    return next;
  };
  return {
    get: (ctx, target, options) => get(ctx, target, options),
    async update(ctx, target, body, options) {
      const { kind } = target;
      const { object: original, warnings } = checkWrittenObject(ctx, target, body, options);
      const result = await guaranteedUpdate(ctx, {
        target,
        dryRun: options.dryRun,
        compute: (current) => trackWrite(ctx, kind, current.obj, prepare(ctx, kind, clone(original), current), options, o.name),
        admission: { subresource: o.name, options },
      });
      return withWarnings(result, warnings);
    },
    async patch(ctx, target, type, body, options) {
      const { kind } = target;
      requireName(target);
      requireNamespace(target);
      if (type === 'apply') {
        return serverSideApply(ctx, target, body, options, {
          subresource: o.name,
          prepare: (obj, current) => prepare(ctx, kind, obj, current),
          allowCreate: false,
        });
      }
      return patchWith(ctx, target, type, body, options, (patched, current) => prepare(ctx, kind, patched, current), o.name);
    },
  };
}
