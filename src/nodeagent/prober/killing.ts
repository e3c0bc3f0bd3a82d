/**
 * What kuberuntime says when it kills a container for its probes (kubelet 1.20's computePodActions
 * and killContainer): `Container <name> failed liveness probe` (or startup probe), with
 * `, will be restarted` when the restart policy restarts it, as a Normal Killing event.
 */
import type { Pod, ProbeResults } from '../types';
import type { ProbeEventRecorder } from './prober';

/** the kill message for a container whose liveness or startup result is failure; undefined to keep it */
export function probeKillMessage(containerName: string, containerId: string, results: { liveness: ProbeResults; startup: ProbeResults }, willRestart: boolean): string | undefined {
  let message: string;
  if (results.liveness.get(containerId) === 'failure') message = `Container ${containerName} failed liveness probe`;
  else if (results.startup.get(containerId) === 'failure') message = `Container ${containerName} failed startup probe`;
  else return undefined;
  return willRestart ? `${message}, will be restarted` : message;
}

/** records the Killing event kubelet sends before stopping the container */
export function recordProbeKilling(recorder: ProbeEventRecorder, pod: Pod, message: string): void {
  recorder.event(pod, 'Normal', 'Killing', message);
}
