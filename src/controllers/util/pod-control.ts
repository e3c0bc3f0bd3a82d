/**
 * What kube's workload controllers share to make and remove pods (controller.RealPodControl and
 * slowStartBatch): a pod created from the owner's template or deleted, with the owner's
 * SuccessfulCreate/FailedCreate and SuccessfulDelete/FailedDelete events in kube's words.
 */
import { isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import type { ControllerContext } from '../types';
import { errorMessage, isNamespaceTerminating } from './errors';
import { podFromTemplate } from './pod-template';

/** kube's slowStartBatch: run `count` calls in batches of 1, 2, 4 ...; stop after a batch with a failure */
export async function slowStartBatch(count: number, initial: number, fn: () => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initial); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += results.filter((r) => r.status === 'fulfilled').length;
    if (failed) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes };
}

/** create a pod from `template` for `owner`; undefined (no event, no error) when its namespace is terminating */
export async function createPodFor(ctx: ControllerContext, owner: KubeObject, template: KubeObject | undefined): Promise<KubeObject | undefined> {
  try {
    const created = await ctx.client.create(RESOURCES.pods, owner.metadata?.namespace, podFromTemplate(owner, template));
    ctx.recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
    return created;
  } catch (err) {
    if (isNamespaceTerminating(err)) return undefined;
    ctx.recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
    throw err;
  }
}

/** delete `owner`'s pod; a pod already gone is not an error */
export async function deletePodOf(ctx: ControllerContext, owner: KubeObject, pod: KubeObject): Promise<void> {
  try {
    await ctx.client.delete(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '');
    ctx.recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name}`);
  } catch (err) {
    if (isNotFound(err)) return;
    ctx.recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
    throw err;
  }
}
