/**
 * Container log rotation as kubelet's ContainerLogManager does it (pkg/kubelet/logs): for each
 * running container whose log exceeds maxSize, older rotated files beyond maxFiles are removed,
 * rotated files but the newest are gzip-compressed, and the live log is renamed to
 * `<log>.<YYYYMMDD-HHMMSS>` before the runtime is asked to reopen it (renamed back if it cannot).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { RuntimeService } from '../types';

export interface ContainerLogManagerOptions {
  runtime: RuntimeService;
  /** --container-log-max-size in bytes (10 MiB by default) */
  maxSizeBytes?: number;
  /** --container-log-max-files (5 by default, at least 2) */
  maxFiles?: number;
  now?: () => Date;
}

function timestamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}-${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}`;
}

export class ContainerLogManager {
  readonly #runtime: RuntimeService;
  readonly #maxSize: number;
  readonly #maxFiles: number;
  readonly #now: () => Date;

  constructor(options: ContainerLogManagerOptions) {
    this.#runtime = options.runtime;
    this.#maxSize = options.maxSizeBytes ?? 10 * 1024 * 1024;
    this.#maxFiles = Math.max(2, options.maxFiles ?? 5);
    this.#now = options.now ?? (() => new Date());
  }

  /** one pass over the running containers (kubelet runs it every 10 s) */
  async rotateLogs(): Promise<void> {
    for (const container of await this.#runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' } })) {
      try {
        const logPath = (await this.#runtime.containerStatus(container.id)).status?.logPath ?? '';
        if (logPath === '' || !fs.existsSync(logPath) || fs.statSync(logPath).size < this.#maxSize) continue;
        this.#removeExcess(logPath);
        await this.#compressRotated(logPath);
        await this.#rotateLatest(container.id, logPath);
      } catch {
        // kube logs the failure and goes on with the next container
      }
    }
  }

  /** the rotated files of a log, oldest first */
  #rotated(logPath: string): string[] {
    const dir = path.dirname(logPath);
    const base = path.basename(logPath);
    return fs
      .readdirSync(dir)
      .filter((f) => f.startsWith(`${base}.`) && !f.endsWith('.tmp'))
      .sort()
      .map((f) => path.join(dir, f));
  }

  /** keeps maxFiles - 2 rotated files, so that with the one rotated now and the live log there are maxFiles */
  #removeExcess(logPath: string): void {
    const rotated = this.#rotated(logPath);
    for (const file of rotated.slice(0, Math.max(0, rotated.length - (this.#maxFiles - 2)))) fs.rmSync(file, { force: true });
  }

  async #compressRotated(logPath: string): Promise<void> {
    const rotated = this.#rotated(logPath).filter((f) => !f.endsWith('.gz'));
    for (const file of rotated) {
      const tmp = `${file}.tmp`;
      fs.writeFileSync(tmp, zlib.gzipSync(fs.readFileSync(file)));
      fs.renameSync(tmp, `${file}.gz`);
      fs.rmSync(file, { force: true });
    }
  }

  async #rotateLatest(id: string, logPath: string): Promise<void> {
    const rotated = `${logPath}.${timestamp(this.#now())}`;
    fs.renameSync(logPath, rotated);
    try {
      await this.#runtime.reopenContainerLog(id);
    } catch (err) {
      fs.renameSync(rotated, logPath);
      throw err;
    }
  }
}
