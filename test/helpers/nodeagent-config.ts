/**
 * A KubeletConfiguration for a test's node agent whose pod logs live in a directory of its own: an
 * agent's container garbage collector removes the log directories in /var/log/pods of pods it does
 * not know, and other test files' agents share this host. Removed when the test ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

export function ownPodLogs(t: Test, extraLines: readonly string[] = []): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-e2e-agent-config-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.yaml');
  fs.writeFileSync(file, ['apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', `podLogsDir: ${path.join(dir, 'pod-logs')}`, ...extraLines, ''].join('\n'));
  return file;
}
