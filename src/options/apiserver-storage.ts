import { atLeast, between, oneOf, option } from './define';
import { storeUrlProblem } from '../storage/store-url';
import { STORAGE_MEDIA_TYPES } from '../storage/codec/storage-codec';
import { serversOverridesProblem } from '../storage/servers-overrides';
import type { OptionGroup } from './types';

/** API server network options beyond secure serving (spec 2, 1.3) */
export const apiServerNetworkOptions: OptionGroup = Object.freeze({
  title: 'API server flags',
  options: [
    option('advertise-address', 'ip', 'address published in the endpoints of the "kubernetes" service (and, without --external-hostname, in /api discovery and the service account jwks_uri); defaults to --bind-address, or when that is 0.0.0.0 or :: to the first IPv4 address of the default route\'s interface', { supported: true }),
    option('external-hostname', 'string', 'host name used in URLs this server hands out: serverAddressByClientCIDRs of /api (<host>:<secure-port>) and the service account issuer\'s jwks_uri when --service-account-jwks-uri is not given; defaults to --advertise-address', { supported: true }),
    option('cors-allowed-origins', 'stringSlice', 'origins (regular expressions, matched anywhere in the Origin header; anchor them) whose browser requests get CORS headers; their preflight OPTIONS requests are answered before authentication; empty leaves CORS off', { supported: true }),
    option('goaway-chance', 'float', 'share of HTTP/2 requests answered with GOAWAY so clients spread over servers behind a load balancer (0 to 0.02)', {
      default: '0',
      validate: between(0, 0.02),
      supported: true,
    }),
    option('enable-aggregator-routing', 'bool', 'send aggregated API requests to endpoint IPs rather than the service IP', { supported: true }),
    option('proxy-client-cert-file', 'string', 'client certificate this server presents when it calls extension servers and webhooks', { supported: true }),
    option('proxy-client-key-file', 'string', 'key of --proxy-client-cert-file', { supported: true }),
    option('egress-selector-config-file', 'string', 'EgressSelectorConfiguration file (apiserver.k8s.io/v1beta1 or v1alpha1); only the Direct proxy protocol is accepted (the cluster, controlplane and etcd selections are all reached directly), HTTPConnect and GRPC stop start-up', { supported: true }),
    option('enable-garbage-collector', 'bool', 'deletes add the orphan and foregroundDeletion finalizers that propagationPolicy (and orphanDependents) ask for; false leaves finalizers as they are, as kube does without the garbage collector. The controller manager\'s garbagecollector removes those finalizers once the dependents are handled; must match its --enable-garbage-collector', { default: 'true', supported: true }),
    option('enable-priority-and-fairness', 'bool', 'classify requests by FlowSchemas and queue them fairly per priority level (seats from --max-requests-inflight plus --max-mutating-requests-inflight) instead of the plain in-flight limits', {
      default: 'true',
      supported: true,
    }),
    option('endpoint-reconciler-type', 'string', 'how the Endpoints and EndpointSlice of the "kubernetes" service are kept (every 10 s): lease (each server renews a 15 s lease; the endpoints are the live servers), master-count (this server among at most --apiserver-count addresses) or none (not written)', {
      default: 'lease',
      supported: true,
      validate: oneOf('master-count', 'lease', 'none'),
    }),
    option('apiserver-count', 'int', 'number of API servers (with master-count reconciling)', { default: '1', validate: atLeast(1), supported: true }),
    option('kubernetes-service-node-port', 'int', 'when not 0, the "kubernetes" service is a NodePort service on this port (within --service-node-port-range)', { default: '0', supported: true }),
    option('service-cluster-ip-range', 'string', 'IPv4 CIDR (a /12 to a /29) from which services get their cluster IPs, no two alike; its first address is the kubernetes service\'s. Default 10.96.0.0/12 (kubeadm\'s)', { supported: true }),
    option('service-node-port-range', 'portRange', 'inclusive port range NodePort and LoadBalancer services get their node ports from, no two alike', { default: '30000-32767', supported: true }),
    option('master-service-namespace', 'string', 'deprecated: namespace of the "kubernetes" service, its Endpoints and EndpointSlice', { default: 'default', supported: true }),
    option('allow-privileged', 'bool', 'allow privileged containers; when false, pods and pod templates with a container whose securityContext.privileged is true are refused ("Forbidden: disallowed by cluster policy")', { default: 'false', supported: true }),
    option('default-not-ready-toleration-seconds', 'int', 'tolerationSeconds of the notReady:NoExecute toleration the DefaultTolerationSeconds admission plugin adds to pods without one', { default: '300', supported: true }),
    option('default-unreachable-toleration-seconds', 'int', 'tolerationSeconds of the unreachable:NoExecute toleration the DefaultTolerationSeconds admission plugin adds to pods without one', { default: '300', supported: true }),
    option('kubelet-certificate-authority', 'string', 'CA file used to check node agent serving certificates (verified when given; unset = not verified, as kube)', { supported: true }),
    option('kubelet-client-certificate', 'string', 'client certificate presented to node agents (default: <cert-dir>/apiserver-kubelet-client.crt, O=system:masters, generated)', { supported: true }),
    option('kubelet-client-key', 'string', 'key of --kubelet-client-certificate', { supported: true }),
    option('kubelet-preferred-address-types', 'stringSlice', 'node address types tried, in order, to reach a node agent: Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP', {
      default: 'Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP',
      supported: true,
    }),
    option('kubelet-timeout', 'duration', 'time limit until a node agent answers a call (log streams and upgrades then run on)', { default: '5s', supported: true }),
    option('cloud-provider-gce-l7lb-src-cidrs', 'cidrs', 'CIDRs opened in the firewall for layer-7 load balancer traffic and health checks', {
      default: '130.211.0.0/22,35.191.0.0/16',
    }),
  ],
});

/**
 * Storage options (spec 2, 1.3). Ballast keeps state in a SQL revision log instead of etcd, so
 * --etcd-servers takes `sqlite:///path/state.db` (embedded) or `postgres://host:5432/db` URLs.
 */
export const etcdOptions: OptionGroup = Object.freeze({
  title: 'Storage (etcd) flags',
  options: [
    option('etcd-servers', 'stringSlice', 'where state is kept: sqlite:///path/to/state.db (embedded, one server process per file) or postgres://user:password@host:5432/db[?sslmode=...] (PostgreSQL, shared by any number of API servers; sslmode as libpq: disable, require, verify-ca, verify-full, no-verify)', {
      defaultText: 'sqlite://<data-dir>/state.db',
      supported: true,
      // checked while parsing, so a bad URL is refused before certificates or files are written
      validate: (v) => {
        for (const url of (v as string[]).filter((u) => u !== '')) {
          const problem = storeUrlProblem(url);
          if (problem) return (v as string[]).length > 1 ? `${url}: ${problem}` : problem;
        }
        return undefined;
      },
    }),
    option('etcd-compaction-interval', 'duration', 'how often history older than the newest revision of each object is trimmed; 0 turns compaction off', {
      default: '5m0s',
      supported: true,
      validate: (v) => ((v as number) >= 0 ? undefined : 'must not be negative'),
    }),
    option('storage-backend', 'string', 'storage backend: etcd3 (the default, and kube\'s only value) or empty; the scheme of --etcd-servers picks the SQL store behind it (sqlite:// or postgres://)', {
      supported: true,
      validate: (v) => (v === '' || v === 'etcd3' ? undefined : "allowed values: etcd3. If not specified, it will default to 'etcd3'"),
    }),
    option(
      'storage-media-type',
      'string',
      'form new writes store objects in: application/json, application/yaml, or application/vnd.kubernetes.protobuf (stored as the text `k8s:pb:` + base64 of kube\'s protobuf envelope; custom resources and objects kube has no protobuf message for stay JSON). Every form is read whatever this says, so it can change between starts; a rewrite (kubectl replace) moves a YAML or protobuf object to the current form. The default is JSON, not kube\'s protobuf: in Ballast protobuf is the slower form, since the API layer works on JSON and protobuf adds a conversion each way: writing and reading a typical Pod 10,000 times took 1.1 s as JSON, 6.5 s as protobuf and 18 s as YAML (stored sizes 2.9, 1.8 and 3.4 kB)',
      { default: 'application/json', validate: oneOf(...STORAGE_MEDIA_TYPES), supported: true },
    ),
    option('encryption-provider-config', 'string', 'EncryptionConfiguration file: the resources to encrypt at rest and their providers (aescbc, aesgcm, secretbox, identity, and kms v1: a KMS plugin serving kube\'s v1beta1 KeyManagementService on a unix:// socket, with a fresh data key per write and a cache of decrypted data keys; the first encrypts, all decrypt). With one kms provider /healthz/kms-provider-0 checks its plugin (kms-providers with several)', { supported: true }),
    option('etcd-servers-overrides', 'stringSlice', 'resources kept in a store of their own, as group/resource#url (core group as /resource, e.g. /events#sqlite:///var/lib/ballast/events.db); comma-separated or repeated. Each store has its own revisions (the resourceVersions of those resources); a SQLite one is private to its server, also when the default store is PostgreSQL', {
      supported: true,
      validate: (v) => serversOverridesProblem(v as string[]),
    }),
    option('etcd-cafile', 'string', 'CA file that checks the server certificate of a postgres:// store: TLS with verify-full unless the URL\'s sslmode says otherwise; checked to be readable at start', { supported: true }),
    option('etcd-certfile', 'string', 'client certificate presented to a postgres:// store (TLS; PostgreSQL\'s cert authentication takes the user from its common name); checked to be readable at start', { supported: true }),
    option('etcd-keyfile', 'string', 'key of --etcd-certfile; checked to be readable at start', { supported: true }),
    option('etcd-prefix', 'string', 'root of every key in the database (the API keys /registry/<group>/<resource>/... are stored as <prefix>/<group>/<resource>/...)', { default: '/registry', supported: true }),
    option('etcd-count-metric-poll-period', 'duration', 'how often the per-resource object counts of /metrics (apiserver_storage_objects) are refreshed; 0 turns them off', {
      default: '1m0s',
      supported: true,
      validate: (v) => ((v as number) >= 0 ? undefined : 'must not be negative'),
    }),
    option('etcd-db-metric-poll-interval', 'duration', 'how often the database size of /metrics (apiserver_storage_db_total_size_in_bytes: the SQLite file plus its WAL; not reported for PostgreSQL) is refreshed; 0 turns it off', {
      default: '30s',
      supported: true,
      validate: (v) => ((v as number) >= 0 ? undefined : 'must not be negative'),
    }),
    option('etcd-healthcheck-timeout', 'duration', 'time limit of the storage health check (the etcd check of /healthz, /livez and /readyz); a database slower than this fails it', {
      default: '2s',
      supported: true,
      validate: (v) => ((v as number) > 0 ? undefined : 'must be greater than 0'),
    }),
    option('watch-cache', 'bool', 'keep a watch cache: per resource, the current objects and recent events in memory for rv=0/NotOlderThan reads and watch starts', {
      default: 'true',
      supported: true,
    }),
    option('default-watch-cache-size', 'int', 'events kept per resource by the watch cache; 0 turns the cache off for resources without their own size', {
      default: '100',
      supported: true,
      validate: (v) => ((v as number) >= 0 ? undefined : 'must not be negative'),
    }),
    option('watch-cache-sizes', 'stringSlice', 'per-resource watch cache sizes as resource[.group]#size (0 turns the cache off for that resource)', {
      supported: true,
      validate: (v) => ((v as string[]).every((e) => e === '' || /^[a-z0-9.-]+#\d+$/.test(e.trim())) ? undefined : 'expected resource[.group]#size entries'),
    }),
    option('delete-collection-workers', 'int', 'objects a collection delete (deletecollection) deletes at once; values below 1 mean 1', { default: '1', supported: true }),
    option('event-ttl', 'duration', 'how long events are kept after their last write: a sweep deletes older ones (watchers see DELETED)', {
      default: '1h0m0s',
      supported: true,
      validate: (v) => ((v as number) > 0 ? undefined : 'must be greater than 0'),
    }),
  ],
});
