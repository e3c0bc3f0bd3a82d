/**
 * The optional admission plugins end to end with kubectl 1.32: one server with PodNodeSelector,
 * PodTolerationRestriction, EventRateLimit, OwnerReferencesPermissionEnforcement,
 * LimitPodHardAntiAffinityTopology, ImagePolicyWebhook (an HTTPS backend served by the test) and
 * PodSecurityPolicy on, configured through --admission-control-config-file; one refusal each, as
 * kubectl shows it. RBAC and a token user (alice) for the owner-reference check.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';
import { imagePolicyBackend } from '../admission/image-policy-backend';

const pod = (name: string, ns: string, extra = '', container = '') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
  containers: [{name: c, image: ${container || 'busybox'}}]
${extra}`;

t.test('optional admission plugins refuse as kube does', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'admission-plugins');
  const backend = await imagePolicyBackend(t, dir);
  fs.writeFileSync(path.join(dir, 'imagepolicy.yaml'), `imagePolicy:\n  kubeConfigFile: ${backend.kubeconfig}\n  allowTTL: 50\n  denyTTL: 50\n  retryBackoff: 1\n  defaultAllow: false\n`);
  const config = path.join(dir, 'admission.yaml');
  fs.writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ImagePolicyWebhook
  path: imagepolicy.yaml
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits: [{type: Namespace, qps: 0.001, burst: 2}]
- name: PodNodeSelector
  configuration:
    podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: ""}
`);
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice\n');
  const server = await startApiServer(t, {
    args: [
      '--authorization-mode=RBAC', '--token-auth-file', tokens, '--admission-control-config-file', config,
      '--enable-admission-plugins=PodNodeSelector,PodTolerationRestriction,EventRateLimit,OwnerReferencesPermissionEnforcement,LimitPodHardAntiAffinityTopology,ImagePolicyWebhook,PodSecurityPolicy',
    ],
  });
  const k = kubectlFor(t, '1.32', server);
  const refused = async (what: string, yaml: string, message: string | RegExp, kc = k) => {
    const r = await kc.run(['create', '-f', '-'], yaml);
    t.not(r.code, 0, `${what} refused`);
    t.match(r.stderr, message, what);
  };

  // PodSecurityPolicy: with no policy every pod is refused; then a restricted one
  await refused('no policy', pod('p0', 'default'), 'Error from server (Forbidden): error when creating "STDIN": pods "p0" is forbidden: unable to validate against any pod security policy: []');
  await k.ok(['create', '-f', '-'], `apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata: {name: restricted}
spec:
  privileged: false
  seLinux: {rule: RunAsAny}
  supplementalGroups: {rule: RunAsAny}
  runAsUser: {rule: RunAsAny}
  fsGroup: {rule: RunAsAny}
  volumes: [configMap, secret, emptyDir, projected]
`);
  await k.ok(['create', '-f', '-'], pod('fine', 'default'));
  const fine = await k.json<{ metadata: { annotations: Record<string, string> } }>(['get', 'pod', 'fine']);
  t.equal(fine.metadata.annotations['kubernetes.io/psp'], 'restricted');
  t.equal(backend.reviews.length >= 1, true, 'the image policy backend was asked');
  await refused('privileged pod', pod('priv', 'default', '', 'busybox, securityContext: {privileged: true}'),
    'pods "priv" is forbidden: unable to validate against any pod security policy: [spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]');

  // ImagePolicyWebhook
  await refused('denied image', pod('img', 'default', '', 'bad/app'), 'pods "img" is forbidden: image policy webhook backend denied one or more images: image bad/app is not allowed');

  // LimitPodHardAntiAffinityTopology
  await refused('zone anti-affinity', pod('aa', 'default', `  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {a: b}}, topologyKey: topology.kubernetes.io/zone}]
`), 'pods "aa" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed');

  // PodNodeSelector
  await k.ok(['create', 'namespace', 'team']);
  await k.ok(['annotate', 'namespace', 'team', 'scheduler.alpha.kubernetes.io/node-selector=env=prod']);
  await refused('conflicting node selector', pod('ns1', 'team', '  nodeSelector: {env: dev}\n'), 'pods "ns1" is forbidden: pod node label selector conflicts with its namespace node label selector');

  // PodTolerationRestriction (the whitelist lets DefaultTolerationSeconds' tolerations through)
  await k.ok(['create', 'namespace', 'tolerant']);
  await k.ok(['annotate', 'namespace', 'tolerant', `scheduler.alpha.kubernetes.io/tolerationsWhitelist=${JSON.stringify([
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  ])}`]);
  await k.ok(['create', '-f', '-'], pod('t0', 'tolerant'));
  await refused('toleration outside the whitelist', pod('t1', 'tolerant', '  tolerations: [{key: gpu, operator: Exists}]\n'),
    'pods "t1" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');

  // EventRateLimit: two events in a namespace, then 429
  await k.ok(['create', 'namespace', 'events']);
  const event = (n: number) => `apiVersion: v1
kind: Event
metadata: {name: e${n}, namespace: events}
involvedObject: {kind: Pod, name: p, namespace: events}
reason: Test
message: m
`;
  await k.ok(['create', '-f', '-'], event(1));
  await k.ok(['create', '-f', '-'], event(2));
  await refused('third event', event(3), 'Error from server (TooManyRequests): error when creating "STDIN": Too many requests: limit reached on type Namespace for key events');

  // OwnerReferencesPermissionEnforcement: alice may create configmaps but not delete them
  await k.ok(['create', 'role', 'cm-writer', '--verb=create,get', '--resource=configmaps', '-n', 'default']);
  await k.ok(['create', 'rolebinding', 'alice-cm', '--role=cm-writer', '--user=alice', '-n', 'default']);
  const alice = kubectlFor(t, '1.32', server, { token: 'secret-alice' });
  await refused('ownerRef without delete', `apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
  namespace: default
  ownerReferences: [{apiVersion: v1, kind: Pod, name: fine, uid: 0000-1111}]
`, /configmaps "owned" is forbidden: cannot set an ownerRef on a resource you can't delete: /, alice);
});
