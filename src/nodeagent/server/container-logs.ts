/**
 * /containerLogs/{namespace}/{pod}/{container}: kubelet's getContainerLogs. The query is kube's
 * PodLogOptions (follow, previous, tailLines, limitBytes, sinceSeconds, sinceTime, timestamps); the
 * instance is chosen from the pod's container status as kubelet's validateContainerLogStatus does,
 * and its log file is read through the LogSource.
 */
import type { Pod } from '../types';
import { readContainerLog } from './log-reader';

/** where a container instance logs, and whether it still runs (kubelet asks the runtime's ContainerStatus) */
export interface LogSource {
  containerLog(containerId: string): Promise<{ path: string; running: boolean } | undefined>;
}

export interface PodLogRequest {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: string;
}

export class LogRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function bool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  if (v === '' || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new LogRequestError(400, 'Unable to decode query.');
}

function int(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw new LogRequestError(400, 'Unable to decode query.');
  return Number(v);
}

/** kube's PodLogOptions from the query, validated as ValidatePodLogOptions does */
export function parsePodLogRequest(q: URLSearchParams): PodLogRequest {
  const r: PodLogRequest = { follow: bool(q, 'follow'), previous: bool(q, 'previous'), timestamps: bool(q, 'timestamps') };
  r.tailLines = int(q, 'tailLines');
  r.limitBytes = int(q, 'limitBytes');
  r.sinceSeconds = int(q, 'sinceSeconds');
  const sinceTime = q.get('sinceTime');
  if (sinceTime) {
    if (Number.isNaN(Date.parse(sinceTime))) throw new LogRequestError(400, 'Unable to decode query.');
    r.sinceTime = sinceTime;
  }
  const invalid =
    (r.tailLines !== undefined && r.tailLines < 0) ||
    (r.limitBytes !== undefined && r.limitBytes < 1) ||
    (r.sinceSeconds !== undefined && r.sinceSeconds < 1) ||
    (r.sinceSeconds !== undefined && r.sinceTime !== undefined);
  if (invalid) throw new LogRequestError(422, '{"message": "Invalid request."}');
  return r;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

function containerNames(pod: Pod): string[] {
  const spec = obj(pod.spec);
  return ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as Obj[]).map((c) => String(c.name)) : []));
}

/** kubelet's validateContainerLogStatus: the id of the instance whose log is asked for */
export function containerIdForLogs(pod: Pod, containerName: string, previous: boolean): string {
  const podName = String(pod.metadata?.name ?? '');
  const status = obj(pod.status);
  const all = ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].flatMap((k) => (Array.isArray(status[k]) ? (status[k] as Obj[]) : []));
  const cs = all.find((s) => s.name === containerName);
  const where = `container "${containerName}" in pod "${podName}"`;
  if (!cs) throw new LogRequestError(400, `${where} is not available`);
  const state = obj(cs.state);
  const last = obj(obj(cs.lastState).terminated);
  const lastId = typeof last.containerID === 'string' ? last.containerID : '';
  if (previous) {
    if (!lastId) throw new LogRequestError(400, `previous terminated ${where} not found`);
    return lastId;
  }
  if (state.running) return String(cs.containerID ?? '');
  if (state.terminated) {
    const id = String(obj(state.terminated).containerID ?? '');
    if (id) return id;
    if (lastId) return lastId;
    throw new LogRequestError(400, `${where} is terminated`);
  }
  if (Object.keys(last).length > 0) {
    if (!lastId) throw new LogRequestError(400, `${where} is terminated`);
    return lastId;
  }
  if (state.waiting) {
    const reason = String(obj(state.waiting).reason ?? '');
    if (reason === 'ErrImagePull') throw new LogRequestError(400, `${where} is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') throw new LogRequestError(400, `${where} is waiting to start: trying and failing to pull image`);
    throw new LogRequestError(400, `${where} is waiting to start: ${reason}`);
  }
  throw new LogRequestError(400, `${where} is waiting to start - no logs yet`);
}

/** streams the logs kubelet would give for the request; errors before any output are LogRequestErrors */
export async function serveContainerLogs(o: {
  pod: Pod | undefined;
  /** looks the pod up again while following (its status moves on) */
  namespace: string;
  podName: string;
  containerName: string;
  query: URLSearchParams;
  source: LogSource;
  /** called once, before the first byte */
  start: () => void;
  write: (chunk: string) => void;
  signal?: AbortSignal;
  checkIntervalMs?: number;
  pollIntervalMs?: number;
}): Promise<void> {
  if (!o.pod) throw new LogRequestError(404, `pod "${o.podName}" does not exist`);
  if (!containerNames(o.pod).includes(o.containerName)) throw new LogRequestError(404, `container "${o.containerName}" not found in pod "${o.podName}"`);
  const request = parsePodLogRequest(o.query);
  const id = containerIdForLogs(o.pod, o.containerName, request.previous);
  const bare = id.replace(/^[a-z0-9-]+:\/\//, '');
  const log = await o.source.containerLog(bare);
  if (!log) throw new LogRequestError(400, `failed to get container status for "${bare}": not found`);
  let sinceMs: number | undefined;
  if (request.sinceTime) sinceMs = Date.parse(request.sinceTime);
  if (request.sinceSeconds !== undefined) sinceMs = Date.now() - request.sinceSeconds * 1000;
  o.start();
  await readContainerLog(
    log.path,
    {
      follow: request.follow,
      timestamps: request.timestamps,
      sinceMs,
      tailLines: request.tailLines,
      limitBytes: request.limitBytes,
      running: async () => (await o.source.containerLog(bare))?.running === true,
      signal: o.signal,
      checkIntervalMs: o.checkIntervalMs,
      pollIntervalMs: o.pollIntervalMs,
    },
    o.write,
  ).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return;
    throw err;
  });
}

/** the LogSource of a CRI runtime: the instance's ContainerStatus gives its log path and state */
export function runtimeLogSource(runtime: { containerStatus(id: string): Promise<{ status?: { logPath?: string; state?: string | number } | null }> }): LogSource {
  return {
    async containerLog(containerId) {
      try {
        const s = (await runtime.containerStatus(containerId)).status;
        if (!s?.logPath) return undefined;
        return { path: s.logPath, running: s.state === 'CONTAINER_RUNNING' };
      } catch {
        return undefined;
      }
    },
  };
}
