import t from 'tap';
import { main } from '../../src/cli/main';
import { FeatureGates } from '../../src/options/feature-gates';
import { leaderIdentity, selectControllers, userAgent } from '../../src/controllers/manager';
import { controllerManagerConfig, controllerManagerOptionGroups } from '../../src/options/controller-manager';
import { parseOptions } from '../../src/options/parse';

const configOf = (...argv: string[]) => controllerManagerConfig(parseOptions(controllerManagerOptionGroups, ['--kubeconfig', '/k', ...argv]));

function run(...argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = main(['controller-manager', ...argv], { stdout: (s) => (out += s), stderr: (s) => (err += s), env: {} });
  if (typeof code !== 'number') throw new Error('expected a synchronous result');
  return { code, out, err };
}

t.test('defaults are kube 1.20\'s', async (t) => {
  const c = configOf();
  t.same(c.controllers, ['*']);
  t.equal(c.contentType, 'application/vnd.kubernetes.protobuf');
  t.equal(c.qps, 20);
  t.equal(c.burst, 30);
  t.same(c.leaderElection, { enabled: true, lock: 'leases', name: 'kube-controller-manager', namespace: 'kube-system', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 });
  t.equal(c.serving.securePort, 10257);
  t.same(c.auth.alwaysAllowPaths, ['/healthz', '/readyz', '/livez']);
  t.same(c.auth.requestHeader.usernameHeaders, ['x-remote-user']);
  t.equal(c.auth.tokenCacheTtlMs, 10_000);
  t.equal(c.settings.concurrentGcSyncs, 20);
  t.equal(c.settings.concurrentNamespaceSyncs, 10);
  t.equal(c.settings.minResyncPeriodMs, 12 * 3600_000);
  t.equal(c.settings.terminatedPodGcThreshold, 12500);
  t.equal(c.settings.clusterSigning.durationMs, 8760 * 3600_000);
  t.equal(c.useServiceAccountCredentials, false);
  t.same(c.ignoredFlags, []);
});

t.test('flags fill the settings', async (t) => {
  const c = configOf('--concurrent-deployment-syncs=7', '--concurrent_rc_syncs=3', '--kube-api-content-type=application/json', '--kube-api-qps=50', '--secure-port=0',
    '--cluster-signing-kubelet-client-cert-file=/c', '--cluster-signing-kubelet-client-key-file=/k', '--controller-start-interval=2s', '--min-resync-period=1h', '--pod-eviction-timeout=1m', '--route-reconciliation-period=20s');
  t.equal(c.settings.concurrentDeploymentSyncs, 7);
  t.equal(c.settings.concurrentRcSyncs, 3);
  t.equal(c.contentType, 'application/json');
  t.equal(c.qps, 50);
  t.equal(c.serving.securePort, 0, '0 switches serving off');
  t.same(c.settings.clusterSigning.signers, { 'kubelet-client': { certFile: '/c', keyFile: '/k' } });
  t.equal(c.controllerStartIntervalMs, 2000);
  t.equal(c.settings.minResyncPeriodMs, 3600_000);
  t.equal(c.settings.nodeLifecycle.podEvictionTimeoutMs, 60_000);
  t.same(c.ignoredFlags, ['route-reconciliation-period'], 'flags with no effect (the route controller needs a cloud) are named for the start-up warning');
});

t.test('kube\'s validation, one line each', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['--controllers=bogus'], /^Error: invalid argument "bogus" for "--controllers" flag: "bogus" is not in the list of known controllers$/],
    [['--controllers=*,-nope'], /"nope" is not in the list of known controllers/],
    [['--leader-elect-resource-lock=foo'], /^Error: leaderElection\.resourceLock: Invalid value: "foo"/],
    [['--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'], /^Error: leaderElection\.leaseDuration: Invalid value: "5s": LeaseDuration must be greater than RenewDeadline$/],
    [['--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=2s'], /renewDeadline must be greater than retryPeriod\*JitterFactor/],
    [['--leader-elect-retry-period=0s'], /must be greater than zero/],
    [['--cluster-signing-cert-file=/a', '--cluster-signing-key-file=/b', '--cluster-signing-kubelet-serving-cert-file=/c', '--cluster-signing-kubelet-serving-key-file=/d'],
      /^Error: cannot specify --cluster-signing-\{cert,key\}-file and other --cluster-signing-\*-file flags at the same time$/],
    [['--cluster-signing-legacy-unknown-cert-file=/c'], /"cluster-signing-legacy-unknown": cannot specify cert without key/],
    [['--node-cidr-mask-size-ipv4=33'], /--node-cidr-mask-size-ipv4 must be between 1 and 32/],
    [['--cluster-cidr=10.0.0.0/8,fd00::/48', '--node-cidr-mask-size=24'], /usage of --node-cidr-mask-size is not allowed with dual-stack clusters/],
    [['--secure-port=70000'], /must be between 0 and 65535/],
    [['--kube-api-content-type=text/plain'], /must be one of/],
    [['--attach-detach-reconcile-sync-period=1s'], /must be greater than one second/],
    [['--tls-cert-file=/a'], /--tls-cert-file and --tls-private-key-file must be given together/],
    [['--feature-gates=NoSuchGate=true'], /NoSuchGate/],
    [['--no-such-flag'], /^Error: unknown flag: --no-such-flag$/],
  ];
  for (const [argv, want] of cases) {
    const r = run('--kubeconfig', '/k', ...argv);
    t.equal(r.code, 1, argv.join(' '));
    const lines = r.err.trimEnd().split('\n');
    t.equal(lines.length, 2, `${argv.join(' ')}: one line and the usage hint`);
    t.match(lines[0], want);
    t.equal(lines[1], "Run 'ballast controller-manager --help' for usage.");
  }
  t.match(run().err, /^Error: neither --kubeconfig nor --master was specified/);
  t.equal(run('--leader-elect=false', '--leader-elect-resource-lock=foo', '--help').code, 0);
  t.doesNotThrow(() => configOf('--leader-elect=false', '--leader-elect-resource-lock=foo'), 'as kube, the lock is checked only when electing');
});

t.test('--help and --version', async (t) => {
  const help = run('--help');
  t.equal(help.code, 0);
  for (const flag of ['--controllers strings', '--kube-api-qps float', '--leader-elect-resource-lock string', '--authorization-always-allow-paths strings', '--concurrent_rc_syncs int', '--pv-recycler-minimum-timeout-nfs int', '--feature-gates mapStringBool', '--use-service-account-credentials']) {
    t.ok(help.out.includes(flag), flag);
  }
  t.match(help.out, /--secure-port int\n\s+port to serve HTTPS on; 0 means no HTTPS serving \(default 10257\)/);
  t.match(run('--version').out, /^Ballast v/);
});

t.test('which controllers start', async (t) => {
  const all = selectControllers({ controllers: ['*'], cloudProvider: '' });
  const why = new Map(all.skipped.map((s) => [s.name, s.why]));
  t.equal(why.get('bootstrapsigner'), '"bootstrapsigner" is disabled');
  t.match(why.get('route'), /no cloud provider specified/);
  t.match(why.get('service'), /no cloud provider provided/);
  t.match(why.get('cloud-node-lifecycle'), /no cloud provider provided/);
  t.equal(all.start.length + all.skipped.length, 38, 'every known controller is started or named');
  t.equal(why.get('ttl-after-finished'), 'Skipping "ttl-after-finished"', 'its gate TTLAfterFinished is alpha, off, in 1.20');
  t.equal(why.get('ephemeral-volume'), 'Skipping "ephemeral-volume"');
  t.match(why.get('attachdetach'), /^Skipping "attachdetach": no attachable volume plugins/);
  t.same(all.skipped.filter((s) => /not implemented/.test(s.why)), [], 'every other controller kube 1.20 runs is written');
  const gated = selectControllers({ controllers: ['*'], cloudProvider: '', featureGates: new FeatureGates({ TTLAfterFinished: true }) });
  t.notOk(gated.skipped.some((s) => s.name === 'ttl-after-finished' && s.why === 'Skipping "ttl-after-finished"'), 'started (or not implemented) with its gate on');
  const some = selectControllers({ controllers: ['replicaset'], cloudProvider: '' });
  t.ok(some.start.every((c) => c.name === 'replicaset'));
  t.equal(new Map(some.skipped.map((s) => [s.name, s.why])).get('deployment'), '"deployment" is disabled');
});

t.test('identity and user agent as kube makes them', async (t) => {
  t.match(leaderIdentity(), /^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.not(leaderIdentity(), leaderIdentity());
  t.match(userAgent(), /^kube-controller-manager\/v\d+\.\d+\.\d+\S* \(\w+\/\w+\) kubernetes\/\S+$/);
  t.match(userAgent('leader-election'), /\/leader-election$/);
});
