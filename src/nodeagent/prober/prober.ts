/**
 * One probe of one container, as kubelet 1.20's prober.probe: the container's probe of the type run
 * (an absent probe is success), retried up to three times while it errors, with its events:
 * `Warning Unhealthy "<Type> probe failed: <output>"`, `"<Type> probe errored: <error>"`, and
 * `Warning ProbeWarning "<Type> probe warning: <output>"` for a success worth a warning (an HTTP
 * redirect to another host).
 */
import type { Pod, ProbeResult, RuntimeService } from '../types';
import { execProbe, httpProbe, tcpProbe, type ProbeOutcome } from './probe-kinds';
import type { ProbeType } from './results';

/** what the prober needs of an event recorder (src/client/events.ts's EventRecorder fits) */
export interface ProbeEventRecorder {
  event(obj: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** a container as the pod spec has it (the parts the prober reads) */
export type ContainerSpec = Record<string, unknown> & { name: string };

const MAX_PROBE_RETRIES = 3;

export const PROBE_TYPE_NAMES: Record<ProbeType, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

export function probeSpec(container: ContainerSpec, probeType: ProbeType): Record<string, unknown> | undefined {
  return container[`${probeType}Probe`] as Record<string, unknown> | undefined;
}

/** `$(VAR)` in a command from the container's env values (not valueFrom), `$$` an escaped `$`, as kube's ExpandContainerCommandOnlyStatic */
export function expandStatic(command: string[], container: ContainerSpec): string[] {
  const env = new Map<string, string>();
  for (const e of (container.env as { name: string; value?: string; valueFrom?: unknown }[] | undefined) ?? []) {
    if (e.valueFrom === undefined) env.set(e.name, e.value ?? '');
  }
  return command.map((arg) =>
    arg.replace(/\$\$|\$\(([^)]*)\)/g, (match, name: string | undefined) => {
      if (match === '$$') return '$';
      return name !== undefined && env.has(name) ? (env.get(name) as string) : match;
    }),
  );
}

/** a port by number or by the name of one of the container's ports */
export function probePort(port: unknown, container: ContainerSpec): number {
  let number: number;
  if (typeof port === 'number') {
    number = port;
  } else {
    const name = String(port);
    const found = ((container.ports as { name?: string; containerPort: number }[] | undefined) ?? []).find((p) => p.name === name);
    if (found !== undefined) number = found.containerPort;
    else if (/^\d+$/.test(name)) number = Number(name);
    else throw new Error(`couldn't find port: ${name} in ${JSON.stringify(container)}`.slice(0, 300));
  }
  if (!(number > 0 && number < 65536)) throw new Error(`invalid port number: ${number}`);
  return number;
}

/** kube's formatURL: the path may carry a query */
export function probeURL(scheme: string, host: string, port: number, path: string): URL {
  const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new URL(path === '' ? '/' : path.startsWith('/') ? path : `/${path}`, `${scheme.toLowerCase()}://${hostPort}`);
}

export interface ProbeTarget {
  pod: Pod;
  container: ContainerSpec;
  /** the container's runtime id, `<type>://<id>` */
  containerId: string;
  /** the pod's IP, the default host of httpGet and tcpSocket probes */
  podIP: string;
}

/** runs a probe once (kubelet's runProbe); throws when it cannot run */
export async function runProbe(runtime: Pick<RuntimeService, 'execSync'>, probe: Record<string, unknown>, target: ProbeTarget): Promise<ProbeOutcome> {
  const timeoutSeconds = (probe.timeoutSeconds as number | undefined) ?? 1;
  const exec = probe.exec as { command?: string[] } | undefined;
  const httpGet = probe.httpGet as { host?: string; scheme?: string; path?: string; port: unknown; httpHeaders?: { name: string; value: string }[] } | undefined;
  const tcpSocket = probe.tcpSocket as { host?: string; port: unknown } | undefined;
  if (exec !== undefined) {
    const bareId = target.containerId.replace(/^[^:]*:\/\//, '');
    return execProbe(runtime, bareId, expandStatic(exec.command ?? [], target.container), timeoutSeconds);
  }
  if (httpGet !== undefined) {
    const port = probePort(httpGet.port, target.container);
    const url = probeURL(httpGet.scheme || 'HTTP', httpGet.host || target.podIP, port, httpGet.path ?? '');
    const headers: Record<string, string> = {};
    for (const header of httpGet.httpHeaders ?? []) headers[header.name] = header.value;
    return httpProbe(url, headers, timeoutSeconds * 1000);
  }
  if (tcpSocket !== undefined) {
    return tcpProbe(tcpSocket.host || target.podIP, probePort(tcpSocket.port, target.container), timeoutSeconds * 1000);
  }
  const meta = target.pod.metadata ?? {};
  throw new Error(`missing probe handler for ${meta.name}_${meta.namespace}(${meta.uid}):${target.container.name}`);
}

/**
 * kubelet's prober.probe: the result of the container's probe of this type, with its events; throws
 * (after the event) when the probe errored, so the worker keeps its last result
 */
export async function probe(runtime: Pick<RuntimeService, 'execSync'>, recorder: ProbeEventRecorder, probeType: ProbeType, target: ProbeTarget): Promise<ProbeResult> {
  const spec = probeSpec(target.container, probeType);
  if (spec === undefined) return 'success';
  const name = PROBE_TYPE_NAMES[probeType];
  let outcome: ProbeOutcome | undefined;
  let error: unknown;
  for (let i = 0; i < MAX_PROBE_RETRIES; i++) {
    try {
      outcome = await runProbe(runtime, spec, target);
      error = undefined;
      break;
    } catch (err) {
      error = err;
    }
  }
  if (outcome === undefined) {
    recorder.event(target.pod, 'Warning', 'Unhealthy', `${name} probe errored: ${error instanceof Error ? error.message : String(error)}`);
    throw error instanceof Error ? error : new Error(String(error));
  }
  if (outcome.result === 'failure') {
    recorder.event(target.pod, 'Warning', 'Unhealthy', `${name} probe failed: ${outcome.output}`);
    return 'failure';
  }
  if (outcome.result === 'warning') recorder.event(target.pod, 'Warning', 'ProbeWarning', `${name} probe warning: ${outcome.output}`);
  return 'success';
}
