/**
 * The storage health check (the etcd check of /healthz, /livez, /readyz) under
 * --etcd-healthcheck-timeout, as kube's etcd check gives up on a slow etcd.
 */
import fs from 'node:fs';
import { readFlagFile } from '../util/files';
import type { Store } from './store';

/** store.ping(), rejected when it takes longer than timeoutMs (kube's words for both) */
export async function pingWithin(store: Pick<Store, 'ping'>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('error getting data from etcd: context deadline exceeded')), timeoutMs);
  });
  try {
    await Promise.race([
      store.ping().catch((err: unknown) => {
        throw new Error(`error getting data from etcd: ${err instanceof Error ? err.message : String(err)}`);
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * --etcd-cafile, --etcd-certfile, --etcd-keyfile: the TLS files of a postgres:// store. Nothing uses
 * them with SQLite, but a missing or unreadable file stops start-up with one line naming its flag.
 */
export function checkStoreTlsFiles(tls: { caFile?: string; certFile?: string; keyFile?: string }): void {
  const files: Array<[string, string | undefined]> = [['--etcd-cafile', tls.caFile], ['--etcd-certfile', tls.certFile], ['--etcd-keyfile', tls.keyFile]];
  for (const [flag, file] of files) {
    if (!file) continue;
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new Error(`${flag} ${file}: is a directory`);
    readFlagFile(file, flag);
  }
}
