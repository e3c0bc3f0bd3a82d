/**
 * ComponentStatus objects from health probes, as kube's componentstatus REST makes them: one
 * Healthy condition per component (True on success, False on failure; the probe's answer as
 * message, a failure to probe at all as error), never stored, no resourceVersion.
 */
import { ApiError } from '../errors';
import type { KubeObject } from '../kind';
import type { KubeList } from '../registry/types';

/** a probe's answer: kube's probe.Result with its output and error */
export interface ProbeResult {
  healthy: boolean;
  /** what the component answered (`ok`), or why the probe failed (`Get "...": ... connection refused`) */
  message: string;
  /** set when the check itself could not be made (kube's etcd prober error) */
  error?: string;
}

/** one component to report on: `etcd-0`, `controller-manager`, `scheduler` */
export interface ComponentProbe {
  name: string;
  check(): Promise<ProbeResult>;
}

async function statusOf(probe: ComponentProbe): Promise<KubeObject> {
  let result: ProbeResult;
  try {
    result = await probe.check();
  } catch (err) {
    result = { healthy: false, message: '', error: err instanceof Error ? err.message : String(err) };
  }
  const condition: Record<string, string> = { type: 'Healthy', status: result.healthy ? 'True' : 'False' };
  if (result.message) condition.message = result.message;
  if (result.error) condition.error = result.error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: probe.name, creationTimestamp: null }, conditions: [condition] };
}

/** kube's Get: an unknown component is a plain error (500), not a NotFound */
export async function getComponentStatus(probes: readonly ComponentProbe[], name: string): Promise<KubeObject> {
  const probe = probes.find((p) => p.name === name);
  if (!probe) throw new ApiError(500, undefined, `Component not found: ${name}`);
  return statusOf(probe);
}

/** kube's List: every component probed at once; `keep` filters (selectors) */
export async function listComponentStatuses(probes: readonly ComponentProbe[], keep: (obj: KubeObject) => boolean): Promise<KubeList> {
  const items = (await Promise.all(probes.map(statusOf))).filter(keep);
  return { apiVersion: 'v1', kind: 'ComponentStatusList', metadata: {} as KubeList['metadata'], items };
}
