/**
 * POST pods/<name>/binding: kube's BindingREST. The Binding's target must be a Node (kind Node or
 * empty) with a name (ValidatePodBinding; kube returns its aggregate as a plain error, so a 500).
 * The pod is then updated in one guaranteed update (kube's setPodHostAndAnnotations): it must
 * exist (404), not be terminating and not be assigned yet (both 409 on pods/binding); it gets
 * spec.nodeName, the Binding's annotations and PodScheduled=True. The Binding's uid and
 * resourceVersion are preconditions on the pod. The pod's managed fields are untouched (kube writes
 * it below the field manager). The answer is a Success Status (201). Dry run writes nothing.
 */
import { ApiError, errors, isApiError } from '../../errors';
import type { KubeObject } from '../../kind';
import { notSupported, required } from '../../validation/field-errors';
import type { RegistryContext } from '../context';
import { clone } from '../codec';
import { guaranteedUpdate } from '../guaranteed-update';
import { metaOf, timestamp } from '../meta';
import { parseResourceVersion } from '../resource-version';
import type { Target, WriteOptions, WriteResult } from '../types';
import { arrAt, ensureObj, isObj, objAt, str, stringMap } from '../../kinds/util';
import { checkActionBody, successStatus } from './action-body';
import type { SubresourceHandler } from './types';

/** kube's ValidatePodBinding, as the aggregate error text it answers with */
function bindingProblems(binding: KubeObject): string | undefined {
  const target = objAt(binding, 'target') ?? {};
  const causes = [];
  const kind = str(target.kind);
  if (kind !== '' && kind !== 'Node') causes.push(notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!str(target.name)) causes.push(required('target.name', ''));
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  if (texts.length === 0) return undefined;
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

/** kube's UpdatePodCondition for PodScheduled=True: a kept transition time when already True */
function markScheduled(pod: KubeObject, now: string): void {
  const status = ensureObj(pod, 'status');
  const conditions = arrAt(status, 'conditions');
  const condition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now };
  const i = conditions.findIndex((c) => isObj(c) && c.type === 'PodScheduled');
  if (i < 0) {
    status.conditions = [...conditions, condition];
    return;
  }
  const old = conditions[i] as Record<string, unknown>;
  if (old.status === 'True' && old.lastTransitionTime) condition.lastTransitionTime = str(old.lastTransitionTime);
  status.conditions = conditions.map((c, j) => (j === i ? condition : c));
}

function bindingConflict(name: string, why: string): ApiError {
  return errors.conflict({ group: '', resource: 'pods/binding' }, name, why);
}

/** bind the pod `target` names to `nodeName` (the registry side of the scheduler's binding) */
export async function assignPod(ctx: RegistryContext, target: Target, binding: KubeObject, dryRun: boolean): Promise<void> {
  const name = target.name ?? '';
  const meta = binding.metadata ?? {};
  const nodeName = str(objAt(binding, 'target')?.name);
  const annotations = stringMap(meta.annotations);
  await guaranteedUpdate(ctx, {
    target,
    dryRun,
    compute(current) {
      const pod = clone(current.obj);
      const podMeta = metaOf(pod);
      // kube's storage preconditions from the Binding's metadata
      if (meta.uid && meta.uid !== podMeta.uid) {
        throw errors.conflict({ group: '', resource: 'pods' }, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${podMeta.uid ?? ''}`);
      }
      if (meta.resourceVersion && parseResourceVersion(meta.resourceVersion) !== current.kv.modRevision) {
        throw errors.conflict(
          { group: '', resource: 'pods' },
          name,
          `Precondition failed: ResourceVersion in precondition: ${meta.resourceVersion}, ResourceVersion in object meta: ${current.kv.modRevision}`,
        );
      }
      if (podMeta.deletionTimestamp) throw bindingConflict(name, `pod ${name} is being deleted, cannot be assigned to a host`);
      const spec = ensureObj(pod, 'spec');
      if (str(spec.nodeName)) throw bindingConflict(name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
      spec.nodeName = nodeName;
      podMeta.annotations = { ...(podMeta.annotations ?? {}), ...annotations };
      markScheduled(pod, timestamp(ctx.clock()));
      return pod;
    },
  });
}

export const podBinding: SubresourceHandler = {
  async create(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    const { obj, warnings } = checkActionBody(ctx, target, body, options);
    const problems = bindingProblems(obj);
    if (problems) throw new ApiError(500, undefined, problems);
    try {
      await assignPod(ctx, target, obj, options.dryRun);
    } catch (err) {
      if (isApiError(err)) throw err;
      throw bindingConflict(target.name ?? '', err instanceof Error ? err.message : String(err));
    }
    const result: WriteResult = { object: successStatus(), created: true };
    return warnings.length ? { ...result, warnings } : result;
  },
};
