/**
 * Service cluster IPs and node ports through kubectl: every service gets its own address from
 * --service-cluster-ip-range, a taken or out-of-range one is a 422 in kube's words, and deleting a
 * service frees what it held.
 */
import t from 'tap';
import { MAIN_JS, kubectlFor, missingKubectl, startApiServer } from './harness';

t.test('cluster IPs and node ports are unique, checked and freed', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t, { args: ['--service-cluster-ip-range', '10.55.0.0/29', '--service-node-port-range', '30100-30101'] });
  const k = kubectlFor(t, '1.32', server);
  const ips: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    await k.ok(['create', 'service', 'clusterip', name, '--tcp=80:8080']);
    ips.push((await k.ok(['get', 'service', name, '-o', 'jsonpath={.spec.clusterIP}'])).trim());
  }
  t.equal(new Set(ips).size, 3, 'three different addresses');
  for (const ip of ips) t.match(ip, /^10\.55\.0\.[2-6]$/, `${ip} is in the range, not its first address`);

  const taken = await k.run(['create', 'service', 'clusterip', 'd', '--tcp=80:8080', `--clusterip=${ips[0]}`]);
  t.match(taken.stderr, `Service "d" is invalid: spec.clusterIPs: Invalid value: []string{"${ips[0]}"}: failed to allocate IP ${ips[0]}: provided IP is already allocated`);
  const outside = await k.run(['create', 'service', 'clusterip', 'd', '--tcp=80:8080', '--clusterip=10.56.0.9']);
  t.match(outside.stderr, 'failed to allocate IP 10.56.0.9: the provided IP (10.56.0.9) is not in the valid range. The range of valid IPs is 10.55.0.0/29');

  await k.ok(['delete', 'service', 'a']);
  await k.ok(['create', 'service', 'clusterip', 'd', '--tcp=80:8080', `--clusterip=${ips[0]}`]);
  t.pass('a deleted service frees its address');

  await k.ok(['create', 'service', 'nodeport', 'np1', '--tcp=80:8080', '--node-port=30100']);
  const np = await k.run(['create', 'service', 'nodeport', 'np2', '--tcp=80:8080', '--node-port=30100']);
  t.match(np.stderr, 'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30100: provided port is already allocated');
  await k.ok(['create', 'service', 'nodeport', 'np3', '--tcp=80:8080']);
  t.equal((await k.ok(['get', 'service', 'np3', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).trim(), '30101', 'the one free port');
  const noIP = await k.run(['create', 'service', 'clusterip', 'e', '--tcp=80:8080']);
  t.match(noIP.stderr, /Internal error occurred: failed to allocate a serviceIP: range is full/, 'five services hold the five addresses');
  await k.ok(['delete', 'service', 'b']);
  const full = await k.run(['create', 'service', 'nodeport', 'np4', '--tcp=80:8080']);
  t.match(full.stderr, /Internal error occurred: failed to allocate a nodePort: range is full/);
  await k.ok(['create', 'service', 'clusterip', 'e', '--tcp=80:8080']);
  t.pass('what the refused NodePort service was given went back at once');
});

t.test('a bad --service-cluster-ip-range is a flag error', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--service-cluster-ip-range', '10.0.0.0/31', '--data-dir', '/nonexistent/never-created'], { encoding: 'utf8' });
  t.equal(r.status, 1);
  t.match(r.stderr, 'invalid argument "10.0.0.0/31" for "--service-cluster-ip-range" flag: 10.0.0.0/31 is too small');
});
