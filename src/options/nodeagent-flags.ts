/**
 * The option tables of `ballast nodeagent` (spec 3 section 1.3): kubelet 1.20's flags with its
 * names, types and defaults (the neutral spec's --svc-* and --nodeagent-* are kube's --kube-* and
 * --kubelet-*). A flag marked in the config file (kubelet's "(config)" flags) also names its
 * KubeletConfiguration field in CONFIG_FLAG_FIELDS: given on the command line it overrides the file.
 */
import { featureGateOptions } from './controller-manager-flags';
import { oneOf, option } from './define';
import { globalOptions, loggingOptions } from './logging';
import { secureServingOptions } from './serving';
import type { OptionGroup, OptionSpec, OptionType, OptionValue } from './types';
import { langleMapProblem, colonMultimapProblem, taintProblem } from '../nodeagent/config/flag-values';
import { DEFAULT_ROOT_DIR, DEFAULT_CERT_DIR, DEFAULT_RUNTIME_ENDPOINT } from '../nodeagent/config/defaults';

/** flag name -> dotted KubeletConfiguration (v1beta1) field that the flag sets */
const fields = new Map<string, string>();

interface Extra {
  default?: string;
  defaultText?: string;
  supported?: boolean;
  validate?: (value: OptionValue) => string | undefined;
  hidden?: boolean;
  typeWord?: string;
}

/** a flag kubelet also reads from its --config file, at `field` */
function cfg(name: string, type: OptionType, field: string, description: string, extra: Extra = {}): OptionSpec {
  fields.set(name, field);
  return option(name, type, `${description} (--config field ${field})`, extra);
}

const yes = { supported: true };

export const nodeAgentMainOptions: OptionGroup = Object.freeze({
  title: 'Node agent flags',
  options: [
    option('config', 'string', 'KubeletConfiguration file (kubelet.config.k8s.io/v1beta1, YAML or JSON); its relative paths are resolved against its directory; flags given on the command line override its fields; omitted, the flags\' defaults apply', yes),
    option('kubeconfig', 'string', 'kubeconfig naming the API server and the node agent\'s credentials; omitted, the agent runs standalone (static pods only)', yes),
    option('bootstrap-kubeconfig', 'string', 'kubeconfig used to request a client certificate through a CertificateSigningRequest when --kubeconfig\'s file does not exist; on success the certificate and key go under --cert-dir and a kubeconfig naming them is written at --kubeconfig', yes),
    option('experimental-bootstrap-kubeconfig', 'string', 'DEPRECATED: use --bootstrap-kubeconfig', { ...yes, hidden: true }),
    option('cert-dir', 'string', 'directory of the TLS certificates (the serving pair made when --tls-cert-file and --tls-private-key-file are not given, and the bootstrapped client pair)', { default: DEFAULT_CERT_DIR, ...yes }),
    option('root-dir', 'string', 'directory of the node agent\'s files (pod directories, volumes, plugins); Ballast\'s default, where kubelet uses /var/lib/kubelet', { default: DEFAULT_ROOT_DIR, ...yes }),
    option('hostname-override', 'string', 'node name to use instead of the host name', yes),
    option('node-ip', 'ip', 'IP address of the node; omitted, the address of the host name or of the default route\'s interface', yes),
    option('node-labels', 'mapStringString', 'labels set when registering the node, key=value pairs; labels in the kubernetes.io and k8s.io namespaces must start with kubelet.kubernetes.io or node.kubernetes.io or be one of the allowed arch, os, hostname, instance-type, region and zone keys', yes),
    option('register-node', 'bool', 'register the node with the API server (false: the Node object must already exist)', { default: 'true', ...yes }),
    option('register-with-taints', 'stringSlice', 'taints set when registering the node, as key=value:Effect (ignored without --register-node)', { ...yes, typeWord: '[]api.Taint', validate: taintProblem }),
    option('register-schedulable', 'bool', 'DEPRECATED: register the node schedulable (use --register-with-taints)', { default: 'true', ...yes }),
    option('simulated-nodes', 'int', 'Ballast: with --container-runtime simulated, the number of nodes this one process stands for (named <node name>-0, -1, ...)', { default: '1', ...yes }),
    cfg('provider-id', 'string', 'providerID', 'unique identifier of the node in the cloud provider\'s database'),
    option('dynamic-config-dir', 'string', 'directory for checkpoints of dynamically downloaded configurations; needs the DynamicKubeletConfig gate'),
    option('lock-file', 'string', 'ALPHA: file the node agent locks while it runs'),
    option('exit-on-lock-contention', 'bool', 'exit when the lock file is contended'),
    option('runonce', 'bool', 'run the static pods once and exit (needs neither --kubeconfig nor the server)'),
  ],
});

export const nodeAgentRuntimeOptions: OptionGroup = Object.freeze({
  title: 'Container runtime flags',
  options: [
    option('container-runtime', 'string', 'the runtime: "remote" (a CRI v1 runtime such as containerd at --container-runtime-endpoint), "process" (each container a host process, no isolation, no root needed) or "simulated" (no processes: pods go through their phases, for scale tests); kubelet\'s "docker" is refused since Ballast has no dockershim', {
      default: 'remote',
      ...yes,
    }),
    option('container-runtime-endpoint', 'string', 'CRI endpoint of the remote runtime (unix:// socket); Ballast\'s default is containerd\'s socket where kubelet 1.20 uses the dockershim\'s', { default: DEFAULT_RUNTIME_ENDPOINT, ...yes }),
    option('image-service-endpoint', 'string', 'CRI image service endpoint; empty means --container-runtime-endpoint', yes),
    cfg('runtime-request-timeout', 'duration', 'runtimeRequestTimeout', 'timeout of every runtime request except long-running ones (pull, logs, exec, attach)', { default: '2m0s', ...yes }),
    option('pod-infra-container-image', 'string', 'image of the pod sandbox (pause) container', { default: 'k8s.gcr.io/pause:3.2', ...yes }),
    option('image-pull-progress-deadline', 'duration', 'a pull without progress for this long is cancelled', { default: '1m0s', ...yes }),
    cfg('serialize-image-pulls', 'bool', 'serializeImagePulls', 'pull one image at a time', { default: 'true', ...yes }),
    cfg('registry-qps', 'int', 'registryPullQPS', 'image pulls per second; 0 means no limit', { default: '5', ...yes }),
    cfg('registry-burst', 'int', 'registryBurst', 'burst of image pulls, with --registry-qps above 0', { default: '10', ...yes }),
    cfg('runtime-cgroups', 'string', 'runtimeCgroups', 'absolute cgroup of the container runtime, for its stats'),
    option('docker-endpoint', 'string', 'the docker runtime\'s endpoint (Ballast has no docker runtime)', { default: 'unix:///var/run/docker.sock' }),
    option('image-credential-provider-config', 'string', 'file configuring image credential provider plugins'),
    option('image-credential-provider-bin-dir', 'string', 'directory of image credential provider plugin binaries'),
  ],
});

export const nodeAgentStaticPodOptions: OptionGroup = Object.freeze({
  title: 'Static pod flags',
  options: [
    cfg('pod-manifest-path', 'string', 'staticPodPath', 'file or directory of static pod manifests (YAML or JSON); files starting with a dot are ignored', yes),
    cfg('file-check-frequency', 'duration', 'fileCheckFrequency', 'interval between checks of --pod-manifest-path', { default: '20s', ...yes }),
    cfg('manifest-url', 'string', 'staticPodURL', 'URL of static pod manifests', yes),
    cfg('manifest-url-header', 'stringArray', 'staticPodURLHeader', 'headers sent with --manifest-url\'s requests, as comma-separated name:value pairs; repeatable, and headers of one name keep the given order', {
      ...yes,
      typeWord: 'colonSeparatedMultimapStringString',
      validate: colonMultimapProblem,
    }),
    cfg('http-check-frequency', 'duration', 'httpCheckFrequency', 'interval between fetches of --manifest-url', { default: '20s', ...yes }),
    cfg('sync-frequency', 'duration', 'syncFrequency', 'longest time between syncs of running pods with their spec', { default: '1m0s', ...yes }),
  ],
});

const tls = secureServingOptions({ securePort: '10250', certDirText: '' }).options.filter((o) =>
  ['tls-cert-file', 'tls-private-key-file', 'tls-min-version', 'tls-cipher-suites'].includes(o.name),
);
const TLS_FIELDS: Record<string, string> = {
  'tls-cert-file': 'tlsCertFile',
  'tls-private-key-file': 'tlsPrivateKeyFile',
  'tls-min-version': 'tlsMinVersion',
  'tls-cipher-suites': 'tlsCipherSuites',
};
for (const o of tls) fields.set(o.name, TLS_FIELDS[o.name]);

export const nodeAgentServingOptions: OptionGroup = Object.freeze({
  title: 'Serving flags',
  options: [
    cfg('enable-server', 'bool', 'enableServer', 'serve the node agent\'s HTTPS API', { default: 'true', ...yes }),
    cfg('address', 'ip', 'address', 'address of the HTTPS server (0.0.0.0 or :: for every interface)', { default: '0.0.0.0', ...yes }),
    cfg('port', 'int', 'port', 'port of the HTTPS server', { default: '10250', ...yes }),
    cfg('read-only-port', 'int', 'readOnlyPort', 'port of the plain-HTTP read-only server, without authentication or authorization; 0 means none (a --config file\'s default is 0)', { default: '10255', ...yes }),
    cfg('healthz-bind-address', 'ip', 'healthzBindAddress', 'address of the healthz server', { default: '127.0.0.1', ...yes }),
    cfg('healthz-port', 'int', 'healthzPort', 'port of the healthz server; 0 means none', { default: '10248', ...yes }),
    cfg('enable-debugging-handlers', 'bool', 'enableDebuggingHandlers', 'serve logs, exec, attach, port-forward and run', { default: 'true', ...yes }),
    option('enable-cadvisor-json-endpoints', 'bool', 'DEPRECATED: serve /spec and /stats/* (not /stats/summary)', { default: 'false' }),
    cfg('contention-profiling', 'bool', 'enableContentionProfiling', 'profile lock contention (Node has none: no effect)'),
    cfg('streaming-connection-idle-timeout', 'duration', 'streamingConnectionIdleTimeout', 'idle time after which a streaming connection (exec, attach, port-forward) is closed', { default: '4h0m0s', ...yes }),
    ...tls.map((o) => Object.freeze({ ...o, description: `${o.description} (--config field ${TLS_FIELDS[o.name]})` })),
    cfg('rotate-certificates', 'bool', 'rotateCertificates', 'BETA: request a new client certificate from the API server when the current one reaches 70-90 % of its lifetime (jittered); the new pair goes under --cert-dir as kubelet-client-<time>.pem, kubelet-client-current.pem links to it, and the agent\'s connections reopen with it', yes),
    cfg('rotate-server-certificates', 'bool', 'serverTLSBootstrap', 'request the serving certificate through a CertificateSigningRequest (signer kubernetes.io/kubelet-serving, the node\'s name and IP) and renew it as it nears expiry; an administrator approves it (kubectl certificate approve): until then the HTTPS port refuses handshakes. Overrides --tls-cert-file and the self-signed pair', yes),
  ],
});

export const nodeAgentAuthOptions: OptionGroup = Object.freeze({
  title: 'Authentication and authorization flags',
  options: [
    cfg('anonymous-auth', 'bool', 'authentication.anonymous.enabled', 'requests without other credentials are user system:anonymous in group system:unauthenticated (a --config file\'s default is false)', { default: 'true', ...yes }),
    cfg('client-ca-file', 'string', 'authentication.x509.clientCAFile', 'CA bundle verifying client certificates; the CommonName is the user', yes),
    cfg('authentication-token-webhook', 'bool', 'authentication.webhook.enabled', 'check bearer tokens with TokenReviews (a --config file\'s default is true)', yes),
    cfg('authentication-token-webhook-cache-ttl', 'duration', 'authentication.webhook.cacheTTL', 'how long TokenReview answers are cached', { default: '2m0s', ...yes }),
    cfg('authorization-mode', 'string', 'authorization.mode', 'AlwaysAllow or Webhook (SubjectAccessReviews); AlwaysAllow without --config, Webhook with it', { default: 'AlwaysAllow', ...yes }),
    cfg('authorization-webhook-cache-authorized-ttl', 'duration', 'authorization.webhook.cacheAuthorizedTTL', 'how long allowed answers are cached', { default: '5m0s', ...yes }),
    cfg('authorization-webhook-cache-unauthorized-ttl', 'duration', 'authorization.webhook.cacheUnauthorizedTTL', 'how long denied answers are cached', { default: '30s', ...yes }),
  ],
});

export const nodeAgentStatusOptions: OptionGroup = Object.freeze({
  title: 'Node status flags',
  options: [
    cfg('node-status-update-frequency', 'duration', 'nodeStatusUpdateFrequency', 'how often the node status is computed and, when changed, posted; must suit the controller manager\'s --node-monitor-grace-period', { default: '10s', ...yes }),
    cfg('node-status-max-images', 'int', 'nodeStatusMaxImages', 'images reported in the node status; -1 means no cap', { default: '50', ...yes }),
    cfg('max-pods', 'int', 'maxPods', 'pods the node can run', { default: '110', ...yes }),
    cfg('pods-per-core', 'int', 'podsPerCore', 'pods per CPU core, capped by --max-pods; 0 means no such cap', { default: '0', ...yes }),
    cfg('pod-cidr', 'string', 'podCIDR', 'CIDR of pod IPs in standalone mode (with an API server the node\'s spec.podCIDR is used)', yes),
    cfg('pod-max-pids', 'int', 'podPidsLimit', 'processes per pod; -1 means no limit', { default: '-1' }),
    cfg('max-open-files', 'int', 'maxOpenFiles', 'files the node agent may open', { default: '1000000' }),
    cfg('volume-stats-agg-period', 'duration', 'volumeStatsAggPeriod', 'interval between volume disk usage measurements; 0 disables them', { default: '1m0s', ...yes }),
    option('housekeeping-interval', 'duration', 'interval between container housekeepings', { default: '10s' }),
  ],
});

const EVICTION_HARD_DEFAULT = 'imagefs.available<15%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%';

export const nodeAgentResourceOptions: OptionGroup = Object.freeze({
  title: 'Resource and eviction flags',
  options: [
    cfg('kube-reserved', 'mapStringString', 'kubeReserved', 'resources reserved for Kubernetes components, as cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000; subtracted from capacity in allocatable', yes),
    cfg('system-reserved', 'mapStringString', 'systemReserved', 'resources reserved for the operating system, as --kube-reserved', yes),
    cfg('kube-reserved-cgroup', 'string', 'kubeReservedCgroup', 'absolute cgroup of the Kubernetes components reserved by --kube-reserved', yes),
    cfg('system-reserved-cgroup', 'string', 'systemReservedCgroup', 'absolute cgroup of the system components reserved by --system-reserved', yes),
    cfg('enforce-node-allocatable', 'stringSlice', 'enforceNodeAllocatable', 'levels of node allocatable the agent enforces: none, or any of pods, system-reserved, kube-reserved (the reserved levels need their cgroup flags)', { default: 'pods', ...yes }),
    cfg('eviction-hard', 'stringSlice', 'evictionHard', 'thresholds that evict pods at once, as memory.available<1Gi; percentages of capacity allowed', {
      default: EVICTION_HARD_DEFAULT,
      ...yes,
      typeWord: 'mapStringString',
      validate: langleMapProblem,
    }),
    cfg('eviction-soft', 'stringSlice', 'evictionSoft', 'thresholds that evict pods after their grace period, as memory.available<1.5Gi', { ...yes, typeWord: 'mapStringString', validate: langleMapProblem }),
    cfg('eviction-soft-grace-period', 'mapStringString', 'evictionSoftGracePeriod', 'how long each soft threshold must hold, as memory.available=1m30s', yes),
    cfg('eviction-minimum-reclaim', 'mapStringString', 'evictionMinimumReclaim', 'least amount an eviction reclaims, as imagefs.available=2Gi', yes),
    cfg('eviction-max-pod-grace-period', 'int', 'evictionMaxPodGracePeriod', 'longest grace period (seconds) for pods evicted by a soft threshold; 0 or less uses the pod\'s own', { default: '0', ...yes }),
    cfg('eviction-pressure-transition-period', 'duration', 'evictionPressureTransitionPeriod', 'how long a pressure condition holds after its threshold stops being met', { default: '5m0s', ...yes }),
    cfg('kernel-memcg-notification', 'bool', 'kernelMemcgNotification', 'use kernel memory cgroup notifications rather than polling for memory thresholds'),
    option('experimental-kernel-memcg-notification', 'bool', 'DEPRECATED: use --kernel-memcg-notification', { hidden: true }),
    option('experimental-allocatable-ignore-eviction', 'bool', 'DEPRECATED: leave the hard eviction thresholds out of allocatable', { default: 'false', ...yes }),
    cfg('image-gc-high-threshold', 'int', 'imageGCHighThresholdPercent', 'disk usage percent above which image garbage collection always runs; 0-100, 100 disables it', { default: '85', ...yes }),
    cfg('image-gc-low-threshold', 'int', 'imageGCLowThresholdPercent', 'disk usage percent image garbage collection frees down to; below --image-gc-high-threshold', { default: '80', ...yes }),
    cfg('minimum-image-ttl-duration', 'duration', 'imageMinimumGCAge', 'least age of an unused image before it is collected', { default: '2m0s', ...yes }),
    option('minimum-container-ttl-duration', 'duration', 'DEPRECATED: least age of a finished container before it is collected', { ...yes }),
    option('maximum-dead-containers', 'int', 'DEPRECATED: dead containers kept on the node; negative means no cap', { default: '-1', ...yes }),
    option('maximum-dead-containers-per-container', 'int', 'DEPRECATED: dead instances kept per container', { default: '1', ...yes }),
    cfg('container-log-max-size', 'string', 'containerLogMaxSize', 'size a container\'s log reaches before it is rotated (a quantity such as 10Mi)', { default: '10Mi', ...yes }),
    cfg('container-log-max-files', 'int', 'containerLogMaxFiles', 'log files kept per container, the current one included; at least 2', { default: '5', ...yes }),
  ],
});

export const nodeAgentCgroupOptions: OptionGroup = Object.freeze({
  title: 'Cgroup and CPU flags',
  options: [
    cfg('cgroups-per-qos', 'bool', 'cgroupsPerQOS', 'put pods in a cgroup per QoS class (burstable, besteffort) under --cgroup-root', { default: 'true', ...yes }),
    cfg('cgroup-driver', 'string', 'cgroupDriver', 'cgroupfs or systemd, as the runtime uses', { default: 'cgroupfs', ...yes }),
    cfg('cgroup-root', 'string', 'cgroupRoot', 'root cgroup of pods; empty means the runtime\'s default', yes),
    cfg('kubelet-cgroups', 'string', 'kubeletCgroups', 'absolute cgroup to run the node agent in'),
    cfg('system-cgroups', 'string', 'systemCgroups', 'absolute cgroup for the host\'s processes not in a cgroup; needs --cgroup-root'),
    cfg('cpu-cfs-quota', 'bool', 'cpuCFSQuota', 'enforce CPU limits with CFS quota', { default: 'true', ...yes }),
    cfg('cpu-cfs-quota-period', 'duration', 'cpuCFSQuotaPeriod', 'CFS quota period; other than 100ms needs the CustomCPUCFSQuotaPeriod gate', { default: '100ms', ...yes }),
    cfg('cpu-manager-policy', 'string', 'cpuManagerPolicy', 'none or static', { default: 'none' }),
    cfg('cpu-manager-reconcile-period', 'duration', 'cpuManagerReconcilePeriod', 'ALPHA: CPU manager reconciliation period', { default: '10s' }),
    cfg('topology-manager-policy', 'string', 'topologyManagerPolicy', 'none, best-effort, restricted or single-numa-node', { default: 'none' }),
    cfg('topology-manager-scope', 'string', 'topologyManagerScope', 'container or pod', { default: 'container' }),
    cfg('qos-reserved', 'mapStringString', 'qosReserved', 'ALPHA: resource percentages reserved by QoS class, as memory=50%; needs the QOSReserved gate'),
    cfg('reserved-cpus', 'string', 'reservedSystemCPUs', 'CPUs reserved for the system and Kubernetes, as 0-3 or 0,1'),
    cfg('protect-kernel-defaults', 'bool', 'protectKernelDefaults', 'fail when kernel tunables differ from the node agent\'s defaults'),
    cfg('oom-score-adj', 'int', 'oomScoreAdj', 'oom_score_adj of the node agent\'s process, -1000 to 1000', { default: '-999' }),
    cfg('fail-swap-on', 'bool', 'failSwapOn', 'refuse to start when swap is on (/proc/swaps lists a device)', { default: 'true', ...yes }),
  ],
});

export const nodeAgentNetworkOptions: OptionGroup = Object.freeze({
  title: 'Networking and DNS flags',
  options: [
    cfg('cluster-dns', 'stringSlice', 'clusterDNS', 'DNS server IPs for pods with dnsPolicy ClusterFirst', yes),
    cfg('cluster-domain', 'string', 'clusterDomain', 'cluster domain added to containers\' DNS search list', yes),
    cfg('resolv-conf', 'string', 'resolvConf', 'resolver configuration whose servers and search list pods with dnsPolicy Default get; empty means none', { default: '/etc/resolv.conf', ...yes }),
    option('cni-bin-dir', 'string', 'directory of the CNI plugin binaries', { default: '/opt/cni/bin', ...yes }),
    option('cni-conf-dir', 'string', 'directory of the CNI configuration the node agent writes and the runtime reads', { default: '/etc/cni/net.d', ...yes }),
    option('cni-cache-dir', 'string', 'directory of the CNI cache', { default: '/var/lib/cni/cache', ...yes }),
    option('network-plugin', 'string', 'ALPHA: network plugin of the docker runtime (Ballast writes a CNI bridge configuration with the remote runtime)'),
    option('network-plugin-mtu', 'int', 'ALPHA: MTU of the pod network; 0 means the default (1460 in kubelet)', { default: '0', ...yes }),
    cfg('hairpin-mode', 'string', 'hairpinMode', 'promiscuous-bridge, hairpin-veth or none', { default: 'promiscuous-bridge', ...yes }),
    cfg('make-iptables-util-chains', 'bool', 'makeIPTablesUtilChains', 'keep the KUBE-MARK-DROP and KUBE-MARK-MASQ chains on the host', { default: 'true' }),
    cfg('iptables-masquerade-bit', 'int', 'iptablesMasqueradeBit', 'fwmark bit for packets to masquerade (0-31); must match the proxy\'s', { default: '14' }),
    cfg('iptables-drop-bit', 'int', 'iptablesDropBit', 'fwmark bit for packets to drop (0-31)', { default: '15' }),
    option('non-masquerade-cidr', 'string', 'DEPRECATED: traffic outside this CIDR is masqueraded', { default: '10.0.0.0/8' }),
    cfg('allowed-unsafe-sysctls', 'stringSlice', 'allowedUnsafeSysctls', 'unsafe sysctls (or patterns ending in *) pods may set', yes),
  ],
});

export const nodeAgentVolumeOptions: OptionGroup = Object.freeze({
  title: 'Volume flags',
  options: [
    option('volume-plugin-dir', 'string', 'directory of FlexVolume plugins', { default: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/', ...yes }),
    cfg('enable-controller-attach-detach', 'bool', 'enableControllerAttachDetach', 'the attach/detach controller attaches and detaches volumes; the node agent does not', { default: 'true', ...yes }),
    option('keep-terminated-pod-volumes', 'bool', 'DEPRECATED: keep the volumes of terminated pods mounted'),
    option('experimental-mounter-path', 'string', 'DEPRECATED: mount binary'),
    option('experimental-check-node-capabilities-before-mount', 'bool', 'DEPRECATED: check the node can mount a volume before mounting it'),
    option('seccomp-profile-root', 'string', 'DEPRECATED: directory of seccomp profiles', { default: `${DEFAULT_ROOT_DIR}/seccomp` }),
  ],
});

export const nodeAgentClientOptions: OptionGroup = Object.freeze({
  title: 'API client flags',
  options: [
    cfg('kube-api-qps', 'int', 'kubeAPIQPS', 'queries per second to the API server', { default: '5', ...yes }),
    cfg('kube-api-burst', 'int', 'kubeAPIBurst', 'burst of queries to the API server', { default: '10', ...yes }),
    cfg('kube-api-content-type', 'string', 'contentType', 'content type of requests to the API server', {
      default: 'application/vnd.kubernetes.protobuf',
      ...yes,
      validate: oneOf('application/vnd.kubernetes.protobuf', 'application/json'),
    }),
    cfg('event-qps', 'int', 'eventRecordQPS', 'events created per second; 0 means no limit', { default: '5', ...yes }),
    cfg('event-burst', 'int', 'eventBurst', 'burst of events, with --event-qps above 0', { default: '10', ...yes }),
  ],
});

/** cadvisor's and other flags kubelet 1.20 still registers, all deprecated */
export const nodeAgentDeprecatedOptions: OptionGroup = Object.freeze({
  title: 'Deprecated flags',
  options: [
    option('master-service-namespace', 'string', 'DEPRECATED: namespace of the kubernetes master service injected into pods', { default: 'default' }),
    option('chaos-chance', 'float', 'DEPRECATED: above 0, the chance of injecting client errors and latency (testing)', { default: '0' }),
    option('really-crash-for-testing', 'bool', 'DEPRECATED: crash on panics (testing)', { hidden: true }),
    option('cloud-provider', 'string', 'DEPRECATED: cloud provider; empty means none'),
    option('cloud-config', 'string', 'DEPRECATED: cloud provider configuration file'),
    option('azure-container-registry-config', 'string', 'file with the Azure container registry configuration'),
    option('application-metrics-count-limit', 'int', 'DEPRECATED: cadvisor: application metrics stored per container', { default: '100' }),
    option('boot-id-file', 'string', 'DEPRECATED: cadvisor: files to read the boot id from', { default: '/proc/sys/kernel/random/boot_id' }),
    option('container-hints', 'string', 'DEPRECATED: cadvisor: container hints file', { default: '/etc/cadvisor/container_hints.json' }),
    option('containerd', 'string', 'DEPRECATED: cadvisor: containerd endpoint', { default: '/run/containerd/containerd.sock' }),
    option('containerd-namespace', 'string', 'DEPRECATED: cadvisor: containerd namespace', { default: 'k8s.io' }),
    option('docker', 'string', 'DEPRECATED: cadvisor: docker endpoint', { default: 'unix:///var/run/docker.sock' }),
    option('docker-env-metadata-whitelist', 'string', 'DEPRECATED: cadvisor: docker environment variables to collect'),
    option('docker-only', 'bool', 'DEPRECATED: cadvisor: report only docker containers'),
    option('docker-root', 'string', 'DEPRECATED: cadvisor: docker root', { default: '/var/lib/docker' }),
    option('docker-tls', 'bool', 'DEPRECATED: cadvisor: use TLS to connect to docker'),
    option('docker-tls-ca', 'string', 'DEPRECATED: cadvisor: docker CA', { default: 'ca.pem' }),
    option('docker-tls-cert', 'string', 'DEPRECATED: cadvisor: docker client certificate', { default: 'cert.pem' }),
    option('docker-tls-key', 'string', 'DEPRECATED: cadvisor: docker client key', { default: 'key.pem' }),
    option('enable-load-reader', 'bool', 'DEPRECATED: cadvisor: read CPU load'),
    option('event-storage-age-limit', 'string', 'DEPRECATED: cadvisor: event ages kept per type', { default: 'default=0' }),
    option('event-storage-event-limit', 'string', 'DEPRECATED: cadvisor: events kept per type', { default: 'default=0' }),
    option('global-housekeeping-interval', 'duration', 'DEPRECATED: cadvisor: global housekeeping interval', { default: '1m0s' }),
    option('log-cadvisor-usage', 'bool', 'DEPRECATED: cadvisor: log its own container\'s usage'),
    option('machine-id-file', 'string', 'DEPRECATED: cadvisor: files to read the machine id from', { default: '/etc/machine-id,/var/lib/dbus/machine-id' }),
    option('storage-driver-buffer-duration', 'duration', 'DEPRECATED: cadvisor: storage driver buffering', { default: '1m0s' }),
    option('storage-driver-db', 'string', 'DEPRECATED: cadvisor: database name', { default: 'cadvisor' }),
    option('storage-driver-host', 'string', 'DEPRECATED: cadvisor: database host:port', { default: 'localhost:8086' }),
    option('storage-driver-password', 'string', 'DEPRECATED: cadvisor: database password', { default: 'root' }),
    option('storage-driver-secure', 'bool', 'DEPRECATED: cadvisor: secure database connection'),
    option('storage-driver-table', 'string', 'DEPRECATED: cadvisor: table name', { default: 'stats' }),
    option('storage-driver-user', 'string', 'DEPRECATED: cadvisor: database user', { default: 'root' }),
  ],
});

export const nodeAgentFeatureGateOptions: OptionGroup = Object.freeze({
  title: featureGateOptions.title,
  options: featureGateOptions.options.map((o) => {
    fields.set(o.name, 'featureGates');
    return Object.freeze({ ...o, description: 'feature gates as Name=true|false pairs (kube 1.32 and 1.20 gates); with --config, the file\'s gates not named here are kept (--config field featureGates)' });
  }),
});

export const nodeAgentMetricsOptions: OptionGroup = Object.freeze({
  title: 'Metrics flags',
  options: [
    cfg('show-hidden-metrics-for-version', 'string', 'showHiddenMetricsForVersion', 'the previous minor release (1.19), whose hidden metrics would be shown again', {
      validate: (v) => (v === '' || v === '1.19' ? undefined : "must be omitted or have the value '1.19'. Only the previous minor version is allowed"),
    }),
  ],
});

/** kubelet's --logging-format is also the file's logging.format */
export const nodeAgentLoggingOptions: OptionGroup = Object.freeze({
  title: loggingOptions.title,
  options: loggingOptions.options.map((o) => {
    if (o.name !== 'logging-format') return o;
    fields.set(o.name, 'logging.format');
    return Object.freeze({ ...o, description: `${o.description} (--config field logging.format)` });
  }),
});

export const nodeAgentOptionGroups: readonly OptionGroup[] = Object.freeze([
  globalOptions,
  nodeAgentMainOptions,
  nodeAgentRuntimeOptions,
  nodeAgentStaticPodOptions,
  nodeAgentServingOptions,
  nodeAgentAuthOptions,
  nodeAgentStatusOptions,
  nodeAgentResourceOptions,
  nodeAgentCgroupOptions,
  nodeAgentNetworkOptions,
  nodeAgentVolumeOptions,
  nodeAgentClientOptions,
  nodeAgentFeatureGateOptions,
  nodeAgentMetricsOptions,
  nodeAgentDeprecatedOptions,
  nodeAgentLoggingOptions,
]);

/** flags that set a KubeletConfiguration field, with the dotted field each sets */
export const CONFIG_FLAG_FIELDS: ReadonlyMap<string, string> = fields;
