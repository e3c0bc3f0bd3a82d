/**
 * podLogsDir (kubelet 1.29's KubeletConfiguration field, no flag): where the agent asks the runtime
 * to write containers' logs, and the directory its container garbage collector sweeps. Agents
 * sharing one host (tests running side by side) each need their own, or each sweeps away the
 * others' pods' logs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { nodeAgentConfig, nodeAgentOptionGroups } from '../../src/options/nodeagent';
import { parseOptions } from '../../src/options/parse';

const configFrom = (t: { teardown(fn: () => void): void }, body: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'na-pod-logs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'kubelet.yaml');
  writeFileSync(file, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${body}`);
  return () => nodeAgentConfig(parseOptions(nodeAgentOptionGroups, ['--kubeconfig=/etc/k.conf', `--config=${file}`]), { readProcSwaps: () => 'Filename\tType\n' });
};

t.test('podLogsDir: /var/log/pods unless the configuration file names another', async (t) => {
  t.equal(configFrom(t, '')().podLogsDir, '/var/log/pods');
  t.equal(configFrom(t, 'podLogsDir: /tmp/agent-1/pods\n')().podLogsDir, '/tmp/agent-1/pods');
});

t.test('podLogsDir: kubelet 1.29\'s checks', async (t) => {
  t.throws(configFrom(t, 'podLogsDir: logs\n'), /podLogsDir logs must be absolute path/);
  t.throws(configFrom(t, 'podLogsDir: /var/log/../pods\n'), /podLogsDir \/var\/log\/\.\.\/pods must be normalized/);
  t.throws(configFrom(t, 'podLogsDir: /\n'), /podLogsDir may not be \//);
});
