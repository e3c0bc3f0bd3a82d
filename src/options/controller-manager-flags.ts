/**
 * The option tables of `ballast controller-manager` (spec 3, sections 1.1, 5 and 8), with kube
 * 1.20's names and defaults. The neutral spec's --svc-api-* are kube's --kube-api-*, and its
 * nodeagent signers are kube's kubelet ones.
 */
import { LOCK_KINDS } from '../client/leader-election';
import { controllersFlagProblem } from '../controllers/names';
import { atLeast, between, oneOf, option } from './define';
import { featureGateHelpLines, validateFeatureGates } from './feature-gates';
import type { OptionGroup, OptionValue } from './types';

/** kube's per-signer flag stems and the settings key each fills */
export const SIGNER_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  'kubelet-serving': 'kubelet-serving',
  'kubelet-client': 'kubelet-client',
  'kube-apiserver-client': 'apiserver-client',
  'legacy-unknown': 'legacy-unknown',
});

const positive = (v: OptionValue): string | undefined => (typeof v === 'number' && v > 0 ? undefined : 'must be greater than zero');

export const genericControllerManagerOptions: OptionGroup = Object.freeze({
  title: 'Generic flags',
  options: [
    option('controllers', 'stringSlice', 'controllers to run: "*" is every controller on by default, "foo" turns foo on, "-foo" turns foo off; the first mention of a name wins. Controllers Ballast has not written yet are skipped with a log line', {
      default: '*',
      supported: true,
      validate: (v) => controllersFlagProblem(v as string[]),
    }),
    option('controller-start-interval', 'duration', 'pause between starting two controllers (jittered up to twice as long)', { default: '0s', supported: true }),
    option('min-resync-period', 'duration', 'informers resync at a random period between this and twice this', { default: '12h0m0s', supported: true }),
    option('kube-api-content-type', 'string', 'content type of requests to the API server (built-in kinds; custom resources are always JSON)', {
      default: 'application/vnd.kubernetes.protobuf',
      supported: true,
      validate: oneOf('application/vnd.kubernetes.protobuf', 'application/json'),
    }),
    option('kube-api-qps', 'float', 'queries per second to the API server; negative means no limit', { default: '20', supported: true }),
    option('kube-api-burst', 'int', 'burst of queries to the API server', { default: '30', supported: true }),
    option('leader-elect', 'bool', 'campaign for leadership before running the controllers (for replicated controller managers)', { default: 'true', supported: true }),
    option('leader-elect-lease-duration', 'duration', 'how long non-leaders wait after observing a renewal before taking over', { default: '15s', supported: true, validate: positive }),
    option('leader-elect-renew-deadline', 'duration', 'how long the leader keeps trying to renew before it stops leading; less than the lease duration', { default: '10s', supported: true, validate: positive }),
    option('leader-elect-retry-period', 'duration', 'wait between attempts to acquire or renew the lock', { default: '2s', supported: true, validate: positive }),
    option('leader-elect-resource-lock', 'string', `kind of lock object: ${LOCK_KINDS.join(', ')}`, { default: 'leases', supported: true }),
    option('leader-elect-resource-name', 'string', 'name of the lock object', { default: 'kube-controller-manager', supported: true }),
    option('leader-elect-resource-namespace', 'string', 'namespace of the lock object', { default: 'kube-system', supported: true }),
  ],
});

export const controllerManagerOptions: OptionGroup = Object.freeze({
  title: 'Controller manager flags',
  options: [
    option('kubeconfig', 'string', 'kubeconfig file naming the API server and the controller manager\'s credentials', { supported: true }),
    option('master', 'string', 'address of the API server (overrides the kubeconfig\'s server)', { supported: true }),
    option('use-service-account-credentials', 'bool', 'give each controller its own service account (<name>-controller in kube-system) and token', { supported: true }),
    option('service-account-private-key-file', 'string', 'PEM RSA or ECDSA private key signing legacy service account tokens', { supported: true }),
    option('root-ca-file', 'string', 'root CA bundle (PEM) put in service account token secrets and the kube-root-ca.crt config maps', { supported: true }),
    option('cluster-name', 'string', 'instance prefix of the cluster', { default: 'kubernetes' }),
    option('enable-garbage-collector', 'bool', 'run the garbage collector; must match the API server\'s flag', { default: 'true', supported: true }),
    option('enable-dynamic-provisioning', 'bool', 'provision volumes dynamically', { default: 'true', supported: true }),
    option('enable-hostpath-provisioner', 'bool', 'provision host-path volumes without a cloud provider (testing only)', { supported: true }),
    option('enable-taint-manager', 'bool', 'evict pods that do not tolerate NoExecute taints', { default: 'true', supported: true }),
    option('disable-attach-detach-reconcile-sync', 'bool', 'turn off the attach/detach reconciler sync'),
    option('external-cloud-volume-plugin', 'string', 'volume plugin for node and volume controllers when the cloud provider is external'),
    option('flex-volume-plugin-dir', 'string', 'directory searched for third-party volume plugins', { default: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/' }),
    option('volume-host-allow-local-loopback', 'bool', 'when false, volume plugins must also avoid loopback addresses', { default: 'true' }),
    option('volume-host-cidr-denylist', 'stringSlice', 'CIDR ranges volume plugins must avoid'),
    option('allocate-node-cidrs', 'bool', 'allocate pod CIDRs to nodes', { supported: true }),
    option('cidr-allocator-type', 'string', 'CIDR allocator: RangeAllocator or CloudAllocator', { default: 'RangeAllocator', supported: true, validate: oneOf('RangeAllocator', 'CloudAllocator', 'IPAMFromCluster', 'IPAMFromCloud') }),
    option('cluster-cidr', 'string', 'pod CIDR range of the cluster (needs --allocate-node-cidrs)', { supported: true }),
    option('service-cluster-ip-range', 'string', 'service CIDR range (needs --allocate-node-cidrs)', { supported: true }),
    option('node-cidr-mask-size', 'int', 'mask size of node CIDRs (24 for IPv4, 64 for IPv6 when unset)', { default: '0', supported: true }),
    option('node-cidr-mask-size-ipv4', 'int', 'mask size of IPv4 node CIDRs in a dual-stack cluster (24 when unset)', { default: '0', supported: true }),
    option('node-cidr-mask-size-ipv6', 'int', 'mask size of IPv6 node CIDRs in a dual-stack cluster (64 when unset)', { default: '0', supported: true }),
    option('configure-cloud-routes', 'bool', 'configure allocated CIDRs on the cloud provider', { default: 'true' }),
    option('max-endpoints-per-slice', 'int', 'endpoints per EndpointSlice', { default: '100', supported: true, validate: between(1, 1000) }),
    option('mirroring-max-endpoints-per-subset', 'int', 'endpoints per EndpointSlice of the mirroring controller', { default: '1000', supported: true, validate: between(1, 1000) }),
    option('external-cloud-volume-plugin-dir', 'string', 'unused (kept hidden for old command lines)', { hidden: true }),
  ],
});

export const certificateSigningOptions: OptionGroup = Object.freeze({
  title: 'Certificate signing flags',
  options: [
    option('cluster-signing-cert-file', 'string', 'PEM CA certificate issuing every signer\'s certificates; excludes the per-signer flags', { supported: true }),
    option('cluster-signing-key-file', 'string', 'PEM RSA or ECDSA private key of --cluster-signing-cert-file', { supported: true }),
    option('cluster-signing-duration', 'duration', 'validity of signed certificates', { default: '8760h0m0s', supported: true, validate: positive }),
    ...Object.keys(SIGNER_FLAGS).flatMap((s) => [
      option(`cluster-signing-${s}-cert-file`, 'string', `PEM CA certificate of the kubernetes.io/${s} signer`, { supported: true }),
      option(`cluster-signing-${s}-key-file`, 'string', `PEM private key of the kubernetes.io/${s} signer`, { supported: true }),
    ]),
  ],
});

export const volumeRecyclerOptions: OptionGroup = Object.freeze({
  title: 'Persistent volume recycler flags',
  options: [
    option('pv-recycler-increment-timeout-nfs', 'int', 'seconds added per Gi to the deadline of an NFS scrubber pod', { default: '30' }),
    option('pv-recycler-minimum-timeout-hostpath', 'int', 'minimum deadline of a host-path recycler pod (development only)', { default: '60', supported: true }),
    option('pv-recycler-minimum-timeout-nfs', 'int', 'minimum deadline of an NFS recycler pod', { default: '300' }),
    option('pv-recycler-timeout-increment-hostpath', 'int', 'seconds added per Gi to the deadline of a host-path scrubber pod (development only)', { default: '30', supported: true }),
    option('pv-recycler-pod-template-filepath-hostpath', 'string', 'pod template of host-path recyclers (development only)', { supported: true }),
    option('pv-recycler-pod-template-filepath-nfs', 'string', 'pod template of NFS recyclers'),
  ],
});

/** section 8 limits; `supported` where a Ballast controller reads the value (the rest still fill ControllerSettings) */
export const controllerLimitOptions: OptionGroup = Object.freeze({
  title: 'Controller limit flags',
  options: [
    option('concurrent-deployment-syncs', 'int', 'deployments synced at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-endpoint-syncs', 'int', 'endpoint syncs at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-gc-syncs', 'int', 'garbage collector workers', { default: '20', supported: true, validate: atLeast(1) }),
    option('concurrent-namespace-syncs', 'int', 'namespaces synced at once', { default: '10', supported: true, validate: atLeast(1) }),
    option('concurrent-replicaset-syncs', 'int', 'replica sets synced at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-resource-quota-syncs', 'int', 'resource quotas synced at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-service-endpoint-syncs', 'int', 'endpoint slice syncs at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-service-syncs', 'int', 'services synced at once', { default: '1' }),
    option('concurrent-serviceaccount-token-syncs', 'int', 'service account token objects synced at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-statefulset-syncs', 'int', 'stateful sets synced at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent-ttl-after-finished-syncs', 'int', 'workers of the ttl-after-finished controller', { default: '5', supported: true, validate: atLeast(1) }),
    option('concurrent_rc_syncs', 'int', 'replication controllers synced at once', { default: '5', supported: true, validate: atLeast(1) }),
    option('mirroring-concurrent-service-endpoint-syncs', 'int', 'mirroring controller syncs at once', { default: '5', supported: true }),
    option('endpoint-updates-batch-period', 'duration', 'batching delay of pod changes for endpoints', { default: '0s', supported: true }),
    option('endpointslice-updates-batch-period', 'duration', 'batching delay of pod changes for endpoint slices', { default: '0s', supported: true }),
    option('mirroring-endpointslice-updates-batch-period', 'duration', 'batching delay of the mirroring controller', { default: '0s', supported: true }),
    option('attach-detach-reconcile-sync-period', 'duration', 'attach/detach reconciler period; above one second', {
      default: '1m0s',
      validate: (v) => (typeof v === 'number' && v > 1000 ? undefined : 'must be greater than one second'),
    }),
    option('deployment-controller-sync-period', 'duration', 'period of deployment syncs', { default: '30s', supported: true }),
    option('namespace-sync-period', 'duration', 'period of namespace life-cycle syncs', { default: '5m0s', supported: true }),
    option('resource-quota-sync-period', 'duration', 'period of quota usage syncs', { default: '5m0s', supported: true }),
    option('pvclaimbinder-sync-period', 'duration', 'period of volume and claim syncs', { default: '15s', supported: true }),
    option('route-reconciliation-period', 'duration', 'period of route reconciliation', { default: '10s' }),
    option('horizontal-pod-autoscaler-sync-period', 'duration', 'period of autoscaler syncs', { default: '15s', supported: true }),
    option('horizontal-pod-autoscaler-cpu-initialization-period', 'duration', 'time after a pod starts during which CPU samples may be skipped', { default: '5m0s', supported: true }),
    option('horizontal-pod-autoscaler-downscale-stabilization', 'duration', 'look-back window of downscale recommendations', { default: '5m0s', supported: true }),
    option('horizontal-pod-autoscaler-initial-readiness-delay', 'duration', 'time after a pod starts during which readiness changes count as initial', { default: '30s', supported: true }),
    option('horizontal-pod-autoscaler-tolerance', 'float', 'smallest change of the desired-to-actual ratio that scales', { default: '0.1', supported: true }),
    option('node-monitor-period', 'duration', 'period of node status syncs', { default: '5s', supported: true }),
    option('node-monitor-grace-period', 'duration', 'how long a running node may be unresponsive before it is unhealthy', { default: '40s', supported: true }),
    option('node-startup-grace-period', 'duration', 'how long a starting node may be unresponsive before it is unhealthy', { default: '1m0s', supported: true }),
    option('pod-eviction-timeout', 'duration', 'grace period for deleting pods on failed nodes', { default: '5m0s', supported: true }),
    option('node-eviction-rate', 'float', 'nodes per second whose pods are deleted after a failure in a healthy zone', { default: '0.1', supported: true }),
    option('secondary-node-eviction-rate', 'float', 'the same in an unhealthy zone', { default: '0.01', supported: true }),
    option('large-cluster-size-threshold', 'int', 'node count from which a cluster counts as large', { default: '50', supported: true }),
    option('unhealthy-zone-threshold', 'float', 'fraction of not-ready nodes (at least 3) making a zone unhealthy', { default: '0.55', supported: true }),
    option('terminated-pod-gc-threshold', 'int', 'terminated pods kept before the pod garbage collector deletes them; 0 or less turns it off', { default: '12500', supported: true }),
  ],
});

/** spec 3 section 5: delegated authentication and authorization of the HTTPS endpoint */
export const delegatedAuthOptions: readonly OptionGroup[] = Object.freeze([
  Object.freeze({
    title: 'Authentication flags',
    options: [
      option('client-ca-file', 'string', 'CA bundle verifying client certificates; the certificate\'s CommonName is the user and its Organizations the groups', { supported: true }),
      option('authentication-kubeconfig', 'string', 'kubeconfig of an API server allowed to create TokenReviews; empty makes every bearer token anonymous', { supported: true }),
      option('authentication-skip-lookup', 'bool', 'do not read the client CA and request-header settings from the extension-apiserver-authentication config map', { supported: true }),
      option('authentication-tolerate-lookup-failure', 'bool', 'a failed lookup is not fatal (requests may then all be anonymous)', { default: 'false', supported: true }),
      option('authentication-token-webhook-cache-ttl', 'duration', 'how long TokenReview answers are cached', { default: '10s', supported: true }),
      option('requestheader-client-ca-file', 'string', 'CA bundle verifying the client certificates of proxies before their user headers are trusted', { supported: true }),
      option('requestheader-allowed-names', 'stringSlice', 'common names allowed for proxies; empty allows any certificate the CA verifies', { supported: true }),
      option('requestheader-username-headers', 'stringSlice', 'headers carrying the user name', { default: 'x-remote-user', supported: true }),
      option('requestheader-group-headers', 'stringSlice', 'headers carrying the groups', { default: 'x-remote-group', supported: true }),
      option('requestheader-extra-headers-prefix', 'stringSlice', 'header prefixes carrying extra user data', { default: 'x-remote-extra-', supported: true }),
    ],
  }),
  Object.freeze({
    title: 'Authorization flags',
    options: [
      option('authorization-kubeconfig', 'string', 'kubeconfig of an API server allowed to create SubjectAccessReviews; empty forbids every request whose path is not always allowed', { supported: true }),
      option('authorization-always-allow-paths', 'stringSlice', 'paths served without asking the API server', { default: '/healthz,/readyz,/livez', supported: true }),
      option('authorization-webhook-cache-authorized-ttl', 'duration', 'how long allowed answers are cached', { default: '10s', supported: true }),
      option('authorization-webhook-cache-unauthorized-ttl', 'duration', 'how long denied answers are cached', { default: '10s', supported: true }),
    ],
  }),
]);

export const featureGateOptions: OptionGroup = Object.freeze({
  title: 'Feature gate flags',
  options: [
    option('feature-gates', 'mapStringBool', 'feature gates as Name=true|false pairs (kube 1.32 and 1.20 gates); TTLAfterFinished and GenericEphemeralVolume decide whether their controllers start (off by default, as in kube 1.20)', {
      supported: true,
      validate: validateFeatureGates,
      helpLines: featureGateHelpLines,
    }),
  ],
});
