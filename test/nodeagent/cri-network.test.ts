/**
 * A pod sandbox in its own network namespace, networked by CNI (Debian's bridge and host-local
 * plugins, with a configuration written by the test, as the node agent will write one for the
 * node's pod CIDR): it gets an address from the range, its container sees that address, and
 * removing the sandbox releases it.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import type { PodSandboxConfig } from '../../src/nodeagent/cri/generated/runtime/v1/PodSandboxConfig';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

t.test('a sandbox on a CNI bridge network gets an address', { skip: containerdSkipReason() ?? false }, async (t) => {
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const { runtime } = containerd;

  // a bridge and a /24 of our own, so that test files running side by side do not meet
  const suffix = crypto.randomBytes(3).toString('hex');
  const bridge = `bt${suffix}`;
  const subnet = `10.${200 + (crypto.randomBytes(1)[0] % 50)}.${crypto.randomBytes(1)[0]}`;
  t.teardown(() => {
    try {
      execFileSync('ip', ['link', 'delete', bridge], { stdio: 'ignore' });
    } catch {
      // never created, or already gone
    }
  });
  const conflist = {
    cniVersion: '0.4.0',
    name: 'ballast-test',
    plugins: [
      {
        type: 'bridge',
        bridge,
        isGateway: true,
        ipMasq: false,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: `${subnet}.0/24` }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: path.join(containerd.dir, 'cni', 'ipam'),
        },
      },
    ],
  };
  fs.writeFileSync(path.join(containerd.cniConfDir, '10-ballast.conflist'), JSON.stringify(conflist));
  // the CRI plugin watches its configuration directory
  await eventually('NetworkReady', async () => {
    const conditions = (await runtime.status()).status?.conditions ?? [];
    return conditions.find((c) => c.type === 'NetworkReady')?.status === true ? true : undefined;
  });
  t.pass('the runtime reports NetworkReady once a CNI configuration exists');

  const uid = crypto.randomUUID();
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name: 'web', namespace: 'default', uid, attempt: 0 },
    hostname: 'web',
    logDirectory: path.join(containerd.podLogRoot, `default_web_${uid}`),
    linux: { securityContext: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  const sandboxId = await runtime.runPodSandbox(sandboxConfig);
  const status = (await runtime.podSandboxStatus(sandboxId)).status;
  t.equal(status?.state, 'SANDBOX_READY');
  t.equal(status?.linux?.namespaces?.options?.network, 'POD', 'its own network namespace');
  const ip = status?.network?.ip ?? '';
  t.match(ip, new RegExp(`^${subnet.replace(/\./g, '\\.')}\\.\\d+$`), `an address from ${subnet}.0/24: ${ip}`);

  fs.mkdirSync(path.join(sandboxConfig.logDirectory!, 'web'), { recursive: true });
  const containerId = await runtime.createContainer(
    sandboxId,
    { metadata: { name: 'web', attempt: 0 }, image: { image: BUSYBOX_IMAGE }, command: ['sleep', '3600'], logPath: 'web/0.log' },
    sandboxConfig,
  );
  await runtime.startContainer(containerId);
  const addresses = await runtime.execSync(containerId, ['ip', '-4', 'addr', 'show', 'eth0'], 10);
  t.match(addresses.stdout.toString(), `inet ${ip}/24`, 'the container sees the address on eth0');
  const hostname = await runtime.execSync(containerId, ['hostname'], 10);
  t.equal(hostname.stdout.toString().trim(), 'web', 'the sandbox hostname');

  await runtime.stopContainer(containerId, 0);
  await runtime.removeContainer(containerId);
  await runtime.stopPodSandbox(sandboxId);
  await runtime.removePodSandbox(sandboxId);
  const leases = fs.readdirSync(path.join(containerd.dir, 'cni', 'ipam', 'ballast-test')).filter((f) => /^\d+\./.test(f));
  t.same(leases, [], 'the address is released');
});
