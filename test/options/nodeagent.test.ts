import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { nodeAgentCommand } from '../../src/cli/nodeagent';
import type { CliIo } from '../../src/cli/io';
import { parseOptions } from '../../src/options/parse';
import { nodeAgentConfig, nodeAgentOptionGroups } from '../../src/options/nodeagent';
import { CONFIG_FLAG_FIELDS } from '../../src/options/nodeagent-flags';
import { withDefaults } from '../../src/nodeagent/config/defaults';
import { formatDuration } from '../../src/options/duration';
import { renderOptionsTables } from '../../scripts/options-table';
import { MAIN_JS } from '../e2e/harness';

const NO_SWAP = 'Filename\tType\tSize\tUsed\tPriority\n';
const parse = (...argv: string[]) => parseOptions(nodeAgentOptionGroups, argv);
const config = (...argv: string[]) => nodeAgentConfig(parse(...argv), { readProcSwaps: () => NO_SWAP });

const tempDir = (t: { teardown(fn: () => void): void }): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'na-opts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const withFile = (t: { teardown(fn: () => void): void }, body: string, ...argv: string[]) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'kubelet.yaml');
  writeFileSync(file, HEAD + body);
  return { file, dir, config: config('--kubeconfig=/etc/k.conf', `--config=${file}`, ...argv) };
};

t.test('flag defaults are kubelet 1.20\'s, with Ballast\'s paths and runtime', async (t) => {
  const c = config();
  t.equal(c.rootDir, '/var/lib/ballast/nodeagent');
  t.equal(c.certDir, '/var/lib/ballast/nodeagent/pki');
  t.equal(c.podLogsDir, '/var/log/pods');
  t.equal(c.port, 10250);
  t.equal(c.readOnlyPort, 10255);
  t.equal(c.address, '0.0.0.0');
  t.equal(c.healthzBindAddress, '127.0.0.1');
  t.equal(c.healthzPort, 10248);
  t.same(c.authentication, { anonymous: { enabled: true }, webhook: { enabled: false, cacheTTLMs: 120_000 }, x509: { clientCAFile: undefined } });
  t.same(c.authorization, { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTTLMs: 300_000, cacheUnauthorizedTTLMs: 30_000 } });
  t.equal(c.containerRuntime, 'remote');
  t.equal(c.containerRuntimeEndpoint, 'unix:///run/containerd/containerd.sock');
  t.equal(c.imageServiceEndpoint, c.containerRuntimeEndpoint);
  t.equal(c.podInfraContainerImage, 'k8s.gcr.io/pause:3.2');
  t.equal(c.runtimeRequestTimeoutMs, 120_000);
  t.equal(c.syncFrequencyMs, 60_000);
  t.equal(c.fileCheckFrequencyMs, 20_000);
  t.equal(c.httpCheckFrequencyMs, 20_000);
  t.equal(c.nodeStatusUpdateFrequencyMs, 10_000);
  t.equal(c.nodeStatusReportFrequencyMs, 300_000);
  t.equal(c.nodeLeaseDurationSeconds, 40);
  t.equal(c.nodeStatusMaxImages, 50);
  t.equal(c.maxPods, 110);
  t.equal(c.kubeAPIQPS, 5);
  t.equal(c.kubeAPIBurst, 10);
  t.equal(c.eventRecordQPS, 5);
  t.equal(c.eventBurst, 10);
  t.equal(c.contentType, 'application/vnd.kubernetes.protobuf');
  t.same(c.evictionHard, { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' });
  t.equal(c.evictionThresholds.length, 4);
  t.equal(c.evictionPressureTransitionPeriodMs, 300_000);
  t.equal(c.imageGCHighThresholdPercent, 85);
  t.equal(c.imageGCLowThresholdPercent, 80);
  t.equal(c.imageMinimumGCAgeMs, 120_000);
  t.equal(c.containerLogMaxSize, '10Mi');
  t.equal(c.containerLogMaxSizeBytes, 10 * 2 ** 20);
  t.equal(c.containerLogMaxFiles, 5);
  t.equal(c.cgroupsPerQOS, true);
  t.equal(c.cgroupDriver, 'cgroupfs');
  t.equal(c.cpuCFSQuota, true);
  t.equal(c.cpuCFSQuotaPeriodMs, 100);
  t.equal(c.failSwapOn, true);
  t.equal(c.registerNode, true);
  t.equal(c.serializeImagePulls, true);
  t.equal(c.resolvConf, '/etc/resolv.conf');
  t.same(c.enforceNodeAllocatable, ['pods']);
  t.equal(c.cniBinDir, '/opt/cni/bin');
  t.equal(c.cniConfDir, '/etc/cni/net.d');
  t.equal(c.cniCacheDir, '/var/lib/cni/cache');
  t.equal(c.volumePluginDir, '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/');
  t.equal(c.simulatedNodes, 1);
  t.equal(c.configFile, undefined);
});

t.test('every config flag\'s default is the configuration\'s default without --config', async (t) => {
  const base = withDefaults(new Map(), { legacy: true });
  const p = parse();
  for (const [flag, field] of CONFIG_FLAG_FIELDS) {
    const v = p.value(flag);
    if (v === undefined || field === 'featureGates' || flag.startsWith('eviction-') || flag === 'manifest-url-header') continue;
    const expected = base.get(field);
    const spec = nodeAgentOptionGroups.flatMap((g) => g.options).find((o) => o.name === flag)!;
    if (spec.type === 'duration') t.equal(formatDuration(v as number), formatDuration(expected as number), flag);
    else t.same(v, expected ?? (Array.isArray(v) ? [] : v), flag);
  }
});

t.test('flags land in the config', async (t) => {
  const c = config(
    '--kubeconfig=k.conf', '--hostname-override=n1', '--node-ip=10.0.0.5', '--node-labels=a=b,node.kubernetes.io/role=x',
    '--container-runtime=simulated', '--simulated-nodes=100', '--max-pods=30', '--cluster-dns=10.96.0.10', '--cluster-domain=cluster.local',
    '--kube-reserved=cpu=100m,memory=100Mi', '--system-reserved=memory=1Gi', '--eviction-hard=memory.available<200Mi',
    '--eviction-soft=memory.available<300Mi', '--eviction-soft-grace-period=memory.available=1m', '--eviction-minimum-reclaim=memory.available=10Mi',
    '--manifest-url=http://x/pods', '--manifest-url-header=a:1,b:2', '--manifest-url-header=a:3',
    '--register-with-taints=k=v:NoSchedule,only:NoExecute', '--sync-frequency=30s', '--read-only-port=0',
  );
  t.equal(c.kubeconfig, path.resolve('k.conf'));
  t.equal(c.hostnameOverride, 'n1');
  t.equal(c.nodeIP, '10.0.0.5');
  t.same(c.nodeLabels, { a: 'b', 'node.kubernetes.io/role': 'x' });
  t.equal(c.containerRuntime, 'simulated');
  t.equal(c.simulatedNodes, 100);
  t.equal(c.maxPods, 30);
  t.same(c.clusterDNS, ['10.96.0.10']);
  t.same(c.kubeReserved, { cpu: '100m', memory: '100Mi' });
  t.same(c.evictionHard, { 'memory.available': '200Mi' }, 'the flag replaces the default map');
  t.equal(c.evictionThresholds.length, 2);
  t.equal(c.evictionThresholds[1].gracePeriodMs, 60_000);
  t.same(c.evictionThresholds[0].minReclaim, { quantity: 10 * 2 ** 20, text: '10Mi' });
  t.same(c.staticPodURLHeader, { a: ['1', '3'], b: ['2'] });
  t.same(c.registerWithTaints, [{ key: 'k', value: 'v', effect: 'NoSchedule' }, { key: 'only', effect: 'NoExecute' }]);
  t.equal(c.syncFrequencyMs, 30_000);
  t.equal(c.readOnlyPort, 0);
});

t.test('flag errors: kube\'s messages', async (t) => {
  const msg = (...argv: string[]) => {
    try {
      config(...argv);
      return '';
    } catch (err) {
      return (err as Error).message;
    }
  };
  t.match(msg('--node-labels=kubernetes.io/foo=1,node-role.kubernetes.io/master='), "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [kubernetes.io/foo node-role.kubernetes.io/master]");
  t.equal(msg('--node-labels=kubernetes.io/os=linux,example.com/x=y,kubelet.kubernetes.io/a=b,x.node.kubernetes.io/b=c'), '');
  t.match(msg('--container-runtime=docker'), 'Ballast has no dockershim');
  t.match(msg('--container-runtime=rkt'), 'unsupported CRI runtime: "rkt"');
  t.match(msg('--simulated-nodes=3'), '--simulated-nodes needs --container-runtime simulated');
  t.match(msg('--eviction-hard=memory.available=1Gi'), 'invalid argument "memory.available=1Gi" for "--eviction-hard" flag: malformed pair, expect string<string');
  t.match(msg('--eviction-hard=memory.available<-1Gi'), 'eviction threshold memory.available must be positive: -1Gi');
  t.match(msg('--eviction-hard=memory.available<120%'), 'eviction percentage threshold memory.available must be <= 100%: 120%');
  t.match(msg('--eviction-hard=foo.available<1Gi'), 'unsupported eviction signal foo.available');
  t.match(msg('--eviction-soft=memory.available<1Gi'), 'grace period must be specified for the soft eviction threshold memory.available');
  t.match(msg('--image-gc-low-threshold=90'), 'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85');
  t.match(msg('--image-gc-high-threshold=101'), 'imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive');
  t.match(msg('--container-log-max-files=1'), 'invalid MaxFiles 1, must be > 1');
  t.match(msg('--container-log-max-size=ten'), 'failed to parse container log max size "ten"');
  t.match(msg('--iptables-drop-bit=32'), 'iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive');
  t.match(msg('--iptables-masquerade-bit=-1'), 'iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive');
  t.match(msg('--enforce-node-allocatable=none,pods'), '"none" specified in enforceNodeAllocatable (--enforce-node-allocatable) but other options also specified');
  t.match(msg('--enforce-node-allocatable=pods,kube-reserved'), 'kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved"');
  t.equal(msg('--enforce-node-allocatable=pods,kube-reserved', '--kube-reserved-cgroup=/kube'), '');
  t.match(msg('--enforce-node-allocatable=bogus'), 'option "bogus" specified for enforceNodeAllocatable');
  t.match(msg('--kube-reserved=gpu=1'), 'cannot reserve "gpu" resource');
  t.match(msg('--system-reserved=memory=-1Gi'), 'resource quantity for "memory" cannot be negative: -1Gi');
  t.match(msg('--port=0'), 'port (--port) 0 must be between 1 and 65535, inclusive');
  t.match(msg('--max-pods=-1'), 'maxPods (--max-pods) -1 must not be a negative number');
  t.match(msg('--node-status-max-images=-2'), 'must be -1 or greater');
  t.match(msg('--hairpin-mode=bogus'), 'option "bogus" specified for hairpinMode');
  t.match(msg('--cpu-cfs-quota-period=50ms'), 'requires feature gate CustomCPUCFSQuotaPeriod');
  t.equal(msg('--cpu-cfs-quota-period=50ms', '--feature-gates=CustomCPUCFSQuotaPeriod=true'), '');
  t.match(msg('--system-cgroups=/sys'), 'systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  t.match(msg('--authorization-mode=Webhook'), 'no client provided, cannot use webhook authorization');
  t.match(msg('--authorization-mode=RBAC', '--kubeconfig=k'), 'unknown authorization mode RBAC');
  t.match(msg('--register-with-taints=k=v:Sometimes'), 'invalid taint effect: Sometimes');
  t.match(msg('--manifest-url-header=novalue'), 'malformed pair, expect string:string');
  t.match(msg('--dynamic-config-dir=/x', '--feature-gates=DynamicKubeletConfig=false'), 'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag');
  t.match(msg('--bogus'), 'unknown flag: --bogus');
  t.match(msg('--image-gc-high-threshold=101', '--image-gc-low-threshold=-1'), /^\[invalid configuration: .*, invalid configuration: .*\]$/, 'several problems are one line');
});

t.test('--fail-swap-on refuses a host with swap, unless switched off or simulated', async (t) => {
  const swaps = `${NO_SWAP}/swapfile                                file\t\t1048572\t\t0\t\t-2\n`;
  const cfg = (...argv: string[]) => nodeAgentConfig(parse(...argv), { readProcSwaps: () => swaps });
  t.throws(() => cfg(), /running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false\. \/proc\/swaps contained: \[Filename/);
  t.equal(cfg('--fail-swap-on=false').failSwapOn, false);
  t.equal(cfg('--container-runtime=simulated').containerRuntime, 'simulated');
});

t.test('--config: the file\'s v1beta1 defaults differ from the flags\'', async (t) => {
  const { config: c } = withFile(t, '');
  t.same(c.authentication.anonymous, { enabled: false });
  t.same(c.authentication.webhook, { enabled: true, cacheTTLMs: 120_000 });
  t.equal(c.authorization.mode, 'Webhook');
  t.equal(c.readOnlyPort, 0);
  t.equal(c.port, 10250);
  t.equal(c.maxPods, 110);
  t.same(c.componentConfig.authorization, { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } });
});

t.test('--config: the file\'s values, zero values defaulted as kube does, relative paths resolved', async (t) => {
  const { config: c, dir, file } = withFile(
    t,
    [
      'port: 0',
      'failSwapOn: false',
      'maxPods: 20',
      'staticPodPath: manifests',
      'tlsCertFile: /abs/cert.pem',
      'tlsPrivateKeyFile: key.pem',
      'authentication: {x509: {clientCAFile: ca.crt}, anonymous: {enabled: true}}',
      'authorization: {mode: AlwaysAllow}',
      'nodeStatusUpdateFrequency: 20s',
      'evictionHard: {memory.available: 1Gi}',
      'featureGates: {CustomCPUCFSQuotaPeriod: true, GracefulNodeShutdown: true}',
      'cpuCFSQuotaPeriod: 50ms',
      'staticPodURLHeader: {X-A: [one, two]}',
      'clusterDNS: [10.0.0.10]',
    ].join('\n'),
  );
  t.equal(c.configFile, file);
  t.equal(c.port, 10250, 'port 0 is the zero value: defaulted');
  t.equal(c.failSwapOn, false, 'a pointer field keeps false');
  t.equal(c.maxPods, 20);
  t.equal(c.staticPodPath, path.join(dir, 'manifests'));
  t.equal(c.tlsCertFile, '/abs/cert.pem');
  t.equal(c.tlsPrivateKeyFile, path.join(dir, 'key.pem'));
  t.equal(c.authentication.x509.clientCAFile, path.join(dir, 'ca.crt'));
  t.equal(c.authentication.anonymous.enabled, true);
  t.equal(c.authorization.mode, 'AlwaysAllow');
  t.equal(c.nodeStatusReportFrequencyMs, 20_000, 'the report frequency follows an explicit update frequency');
  t.same(c.evictionHard, { 'memory.available': '1Gi' });
  t.equal(c.cpuCFSQuotaPeriodMs, 50);
  t.same(c.staticPodURLHeader, { 'X-A': ['one', 'two'] });
  t.same(c.clusterDNS, ['10.0.0.10']);
});

t.test('flags given on the command line override the file; the file\'s other gates stay', async (t) => {
  const { config: c } = withFile(
    t,
    'maxPods: 20\nreadOnlyPort: 10255\nauthorization: {mode: AlwaysAllow}\nfeatureGates: {CustomCPUCFSQuotaPeriod: true, GracefulNodeShutdown: true}\ncpuCFSQuotaPeriod: 50ms\n',
    '--max-pods=40',
    '--read-only-port=0',
    '--feature-gates=GracefulNodeShutdown=false',
  );
  t.equal(c.maxPods, 40);
  t.equal(c.readOnlyPort, 0);
  t.equal(c.authorization.mode, 'AlwaysAllow', 'a flag left at its default does not override the file');
  t.equal(c.featureGates.enabled('GracefulNodeShutdown'), false);
  t.equal(c.featureGates.enabled('CustomCPUCFSQuotaPeriod'), true);
});

t.test('a bad file stops start-up with one line naming the file and the field', async (t) => {
  const bad = (body: string, head = HEAD) => {
    const dir = tempDir(t);
    const file = path.join(dir, 'k.yaml');
    writeFileSync(file, head + body);
    try {
      config(`--config=${file}`);
      return '';
    } catch (err) {
      const m = (err as Error).message;
      t.notMatch(m, /\n/, 'one line');
      t.match(m, `failed to load Kubelet config file ${file}`);
      return m;
    }
  };
  t.match(bad('maxPodz: 3'), 'unknown field "maxPodz"');
  t.match(bad('authentication: {webhook: {enabeld: true}}'), 'unknown field "authentication.webhook.enabeld"');
  t.match(bad('maxPods: "3"'), 'cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32');
  t.match(bad('syncFrequency: soon'), 'time: invalid duration "soon" in field syncFrequency');
  t.match(bad('', 'apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\nmaxPods: 1\n'), 'no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1"');
  t.match(bad('', 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\nmaxPods: 1\n'), 'no kind "KubeProxyConfiguration" is registered');
  t.match(bad('', 'maxPods: 1\n'), "Object 'Kind' is missing");
  t.match(bad('maxPods: [1'), 'failed to decode');
  t.throws(() => config('--config=/nonexistent/k.yaml'), /failed to load Kubelet config file \/nonexistent\/k\.yaml, error failed to read kubelet config file/);
  t.throws(() => withFile(t, 'imageGCLowThresholdPercent: 90'), /imageGCLowThresholdPercent \(--image-gc-low-threshold\) 90 must be less than/);
});

t.test('JSON files work too', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'k.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', maxPods: 7, logging: { format: 'json' } }));
  const c = config('--kubeconfig=k', `--config=${file}`);
  t.equal(c.maxPods, 7);
  t.equal(c.logging.format, 'json');
});

const cli = (...argv: string[]) => {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (s) => (out += s), stderr: (s) => (err += s), env: {} };
  const code = nodeAgentCommand.run(argv, io);
  return { code, out, err };
};

t.test('ballast nodeagent --help: kube-style description and grouped flags', async (t) => {
  const r = cli('--help');
  t.equal(r.code, 0);
  t.match(r.out, /^The Ballast node agent is the primary agent on each node/);
  t.match(r.out, 'Usage:\n  ballast nodeagent [flags]');
  for (const g of nodeAgentOptionGroups) t.match(r.out, `\n${g.title}:\n`);
  t.match(r.out, /--root-dir string\n\s+directory of the node agent's files [^-]*\(default\s+"\/var\/lib\/ballast\/nodeagent"\)/);
  t.match(r.out, /--eviction-hard mapStringString\n/);
  t.match(r.out, /--manifest-url-header colonSeparatedMultimapStringString\n/);
  t.match(r.out, /--kube-reserved mapStringString/);
  t.match(r.out, /--kubelet-cgroups string/);
  t.match(r.out, /--v Level/);
  t.match(r.out, /--tls-cert-file string/);
});

t.test('a flag error is one line and exit 1', async (t) => {
  const r = cli('--nope');
  t.equal(r.code, 1);
  t.equal(r.err, "Error: unknown flag: --nope\nRun 'ballast nodeagent --help' for usage.\n");
  const l = cli('--node-labels=kubernetes.io/bad=1');
  t.equal(l.code, 1);
  t.equal(l.err.split('\n').length, 3);
});

t.test('the README\'s options table has a row for every node agent flag, with kubelet\'s type words', async (t) => {
  const tables = renderOptionsTables(nodeAgentOptionGroups);
  for (const o of nodeAgentOptionGroups.flatMap((g) => g.options)) t.match(tables, `\`--${o.name}\` |`, o.name);
  t.match(tables, /^\| `--eviction-hard` \| mapStringString \| `imagefs.available<15%,/m);
  t.match(tables, /^\| `--docker-endpoint` \| string \| .* \| accepted, no effect \|$/m);
});

t.test('without --kubeconfig the agent runs standalone; without a runtime it stops with one line', { skip: existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const r = spawnSync(
    process.execPath,
    [MAIN_JS, 'nodeagent', '--fail-swap-on=false', '--container-runtime-endpoint', 'unix:///nonexistent/containerd.sock', '--root-dir', mkdtempSync(path.join(tmpdir(), 'ballast-nodeagent-'))],
    { encoding: 'utf8', timeout: 30_000 },
  );
  t.equal(r.status, 1);
  t.match(r.stdout + r.stderr, /standalone mode, no API client/);
  t.match(r.stderr, /^Error: the container runtime at unix:\/\/\/nonexistent\/containerd.sock does not answer/m);
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
});
