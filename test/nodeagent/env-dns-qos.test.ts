/**
 * The pod's resolv.conf by dnsPolicy (kubelet's dns Configurer) and its QoS class and cgroup
 * parent (GetPodQOS, cgroupfs names under --cgroups-per-qos).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { PodDNSConfigurer, type DNSOptions } from '../../src/nodeagent/env/dns';
import { podCgroupParent, podQOSClass } from '../../src/nodeagent/env/qos';
import type { Pod } from '../../src/nodeagent/types';
import { FakeRecorder } from '../helpers/fake-object-sources';

function resolvConf(t: Test, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dns-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'resolv.conf');
  fs.writeFileSync(file, text);
  return file;
}

function dns(t: Test, over: Partial<DNSOptions> = {}): { dns: PodDNSConfigurer; recorder: FakeRecorder } {
  const recorder = new FakeRecorder();
  const opts: DNSOptions = {
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    resolvConf: resolvConf(t, '# host\nnameserver 192.168.1.1\nnameserver 192.168.1.2\nsearch corp.example lab.example\noptions timeout:2\n'),
    nodeName: 'node-a',
    nodeIPs: ['192.168.1.50'],
    recorder,
    ...over,
  };
  return { dns: new PodDNSConfigurer(opts), recorder };
}

const pod = (spec: Record<string, unknown>): Pod => ({ kind: 'Pod', metadata: { name: 'web', namespace: 'shop', uid: 'u-1' }, spec });

t.test('ClusterFirst: the cluster DNS server, cluster searches then the host ones, ndots:5', async (t) => {
  const { dns: d } = dns(t);
  t.same(d.getPodDNS(pod({})), {
    servers: ['10.96.0.10'],
    searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'],
    options: ['ndots:5'],
  });
  t.same(d.getPodDNS(pod({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true })).servers, ['10.96.0.10'], 'ClusterFirstWithHostNet');
  t.same(d.getPodDNS(pod({ dnsPolicy: 'ClusterFirst', hostNetwork: true })).servers, ['192.168.1.1', '192.168.1.2'], 'ClusterFirst on the host network falls back to Default');
});

t.test('Default: the host resolv.conf; no resolv.conf: localhost and "."', async (t) => {
  t.same(dns(t).dns.getPodDNS(pod({ dnsPolicy: 'Default' })), { servers: ['192.168.1.1', '192.168.1.2'], searches: ['corp.example', 'lab.example'], options: ['timeout:2'] });
  t.same(dns(t, { resolvConf: '' }).dns.getPodDNS(pod({ dnsPolicy: 'Default' })), { servers: ['127.0.0.1'], searches: ['.'], options: [] });
});

t.test('None with dnsConfig, and dnsConfig merged over a policy', async (t) => {
  const { dns: d } = dns(t);
  const dnsConfig = { nameservers: ['1.1.1.1'], searches: ['my.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
  t.same(d.getPodDNS(pod({ dnsPolicy: 'None', dnsConfig })), { servers: ['1.1.1.1'], searches: ['my.example'], options: ['ndots:2', 'edns0'] });
  t.same(d.getPodDNS(pod({ dnsConfig })), {
    servers: ['10.96.0.10', '1.1.1.1'],
    searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example', 'my.example'],
    options: ['ndots:2', 'edns0'],
  }, 'options of dnsConfig replace those of the same name');
});

t.test('ClusterFirst without --cluster-dns falls back to Default with MissingClusterDNS events', async (t) => {
  const { dns: d, recorder } = dns(t, { clusterDNS: [] });
  t.same(d.getPodDNS(pod({})).servers, ['192.168.1.1', '192.168.1.2']);
  const msg = 'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';
  t.same(recorder.events, [
    { kind: 'Node', name: 'node-a', type: 'Warning', reason: 'MissingClusterDNS', message: msg },
    { kind: 'Pod', name: 'web', type: 'Warning', reason: 'MissingClusterDNS', message: `pod: "web_shop(u-1)". ${msg}` },
  ]);
});

t.test('limits: three nameservers and six search domains, with an event', async (t) => {
  const { dns: d, recorder } = dns(t);
  const got = d.getPodDNS(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'], searches: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] } }));
  t.same(got.servers, ['1.1.1.1', '2.2.2.2', '3.3.3.3']);
  t.same(got.searches, ['a', 'b', 'c', 'd', 'e', 'f']);
  t.same(recorder.events.map((e) => e.reason), ['DNSConfigForming', 'DNSConfigForming']);
});

const container = (requests?: Record<string, string>, limits?: Record<string, string>) => ({ name: 'c', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });

t.test('QoS class as GetPodQOS', async (t) => {
  t.equal(podQOSClass(pod({ containers: [container()] })), 'BestEffort');
  t.equal(podQOSClass(pod({ containers: [container({ cpu: '0' })] })), 'BestEffort', 'zero requests do not count');
  t.equal(podQOSClass(pod({ containers: [container({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] })), 'Guaranteed');
  t.equal(podQOSClass(pod({ containers: [container(undefined, { cpu: '1', memory: '1Gi' })] })), 'Burstable', 'limits without requests (the API server defaults requests from limits)');
  t.equal(podQOSClass(pod({ containers: [container({ cpu: '1000m', memory: '1Gi' }, { cpu: '1', memory: '1024Mi' })] })), 'Guaranteed', 'equal quantities in other units');
  t.equal(podQOSClass(pod({ containers: [container({ cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] })), 'Burstable');
  t.equal(podQOSClass(pod({ containers: [container({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })], initContainers: [container({ memory: '10Mi' })] })), 'Burstable', 'init containers count');
  t.equal(podQOSClass(pod({ containers: [container(undefined, { cpu: '1' })] })), 'Burstable', 'a limit on cpu only');
});

t.test('cgroup parent under --cgroups-per-qos', async (t) => {
  const guaranteed = pod({ containers: [container({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] });
  const burstable = pod({ containers: [container({ cpu: '1' })] });
  t.equal(podCgroupParent(guaranteed, true, '/'), '/kubepods/podu-1');
  t.equal(podCgroupParent(burstable, true, '/'), '/kubepods/burstable/podu-1');
  t.equal(podCgroupParent(pod({ containers: [container()] }), true, '/edge'), '/edge/kubepods/besteffort/podu-1');
  t.equal(podCgroupParent(burstable, false, ''), '', 'without per-QoS cgroups: the root');
});
