/**
 * postStart and preStop hooks as kubelet runs them (pkg/kubelet/lifecycle/handlers.go): exec
 * through the runtime's ExecSync (a non-zero exit is a failure), httpGet to the pod's IP (or the
 * handler's host) on a numeric or named port, whose answer is not judged, as in kube 1.20. A
 * failure's message is kube's `Exec lifecycle hook ([cmd]) for Container "c" in Pod "p" failed - ...`.
 */
import type { Pod, RuntimeService } from '../types';
import { criMessage } from '../images/image-manager';
import { formatPod } from './labels';

type Spec = Record<string, unknown>;

/** an HTTP GET returning the body (kube's httpGetter); injectable for tests */
export type HttpGet = (url: string, headers: Record<string, string>) => Promise<string>;

export const defaultHttpGet: HttpGet = async (url, headers) => {
  const response = await fetch(url, { headers, redirect: 'follow' });
  return await response.text();
};

/** Go's %q of a string, close enough for the messages */
function quote(text: string): string {
  return JSON.stringify(text);
}

function resolvePort(port: unknown, container: Spec): number {
  if (typeof port === 'number') return port;
  const text = String(port ?? '');
  if (/^\d+$/.test(text)) return Number(text);
  const named = ((container.ports as Spec[] | undefined) ?? []).find((p) => p.name === text);
  if (!named) throw new Error(`couldn't find port: ${text} in ${JSON.stringify(container.ports ?? [])}`);
  return Number(named.containerPort);
}

export class LifecycleHandlerRunner {
  readonly #runtime: RuntimeService;
  readonly #httpGet: HttpGet;

  constructor(runtime: RuntimeService, httpGet: HttpGet = defaultHttpGet) {
    this.#runtime = runtime;
    this.#httpGet = httpGet;
  }

  /** runs the handler; the failure message, or undefined when it succeeded */
  async run(rawContainerId: string, pod: Pod, container: Spec, handler: Spec, podIP: string): Promise<string | undefined> {
    const name = String(container.name ?? '');
    const exec = handler.exec as { command?: string[] } | undefined;
    if (exec) {
      const command = exec.command ?? [];
      let output = '';
      let error: string | undefined;
      try {
        const result = await this.#runtime.execSync(rawContainerId, command, 0);
        output = Buffer.concat([Buffer.from(result.stdout), Buffer.from(result.stderr)]).toString('utf8');
        if (result.exitCode !== 0) error = `command '${command.join(' ')}' exited with ${result.exitCode}: ${Buffer.from(result.stderr).toString('utf8')}`;
      } catch (err) {
        error = criMessage(err);
      }
      if (error === undefined) return undefined;
      return `Exec lifecycle hook ([${command.join(' ')}]) for Container ${quote(name)} in Pod ${quote(formatPod(pod))} failed - error: ${error}, message: ${quote(output)}`;
    }
    const httpGet = handler.httpGet as Spec | undefined;
    if (httpGet) {
      const hookPath = String(httpGet.path ?? '');
      let body = '';
      try {
        const host = typeof httpGet.host === 'string' && httpGet.host !== '' ? httpGet.host : podIP;
        const port = resolvePort(httpGet.port ?? 80, container);
        const scheme = String(httpGet.scheme ?? 'HTTP').toLowerCase();
        const headers: Record<string, string> = {};
        for (const header of (httpGet.httpHeaders as { name: string; value: string }[] | undefined) ?? []) headers[header.name] = header.value;
        const hostPart = host.includes(':') ? `[${host}]` : host;
        const pathPart = hookPath.startsWith('/') ? hookPath : `/${hookPath}`;
        body = await this.#httpGet(`${scheme}://${hostPart}:${port}${pathPart}`, headers);
        return undefined;
      } catch (err) {
        return `Http lifecycle hook (${hookPath}) for Container ${quote(name)} in Pod ${quote(formatPod(pod))} failed - error: ${(err as Error).message}, message: ${quote(body)}`;
      }
    }
    return `Cannot run handler: invalid handler: ${JSON.stringify(handler)}`;
  }
}
