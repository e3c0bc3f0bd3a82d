/**
 * `ballast all`: the API server's flags, plus the choice of components and runtime, plus one
 * pass-through flag per other component (k3s's --kube-controller-manager-arg and kin, in our
 * words). Every component's command line is parsed here, before anything starts, so a bad flag
 * for any of them stops start-up with one line naming it.
 *
 * Each component gets the flags a single-node cluster needs (its kubeconfig in the data dir, the
 * generated CA for signing and for client certificates, loopback ports), then the user's own
 * arguments for it: later flags win, so a user's `--nodeagent-arg=--port=11250` overrides ours.
 */
import os from 'node:os';
import path from 'node:path';
import type { NodeAgentConfig } from '../nodeagent/config/types';
import { PKI_FILES, SA_KEY_FILES } from '../server/pki';
import { apiServerConfig, apiServerOptionGroups, type ApiServerConfig } from './apiserver';
import { controllerManagerConfig, controllerManagerOptionGroups, type ControllerManagerConfig } from './controller-manager';
import { oneOf, option } from './define';
import { nodeAgentConfig, nodeAgentOptionGroups } from './nodeagent';
import { parseOptions, type ParsedOptions } from './parse';
import { schedulerConfig, schedulerOptionGroups, type SchedulerConfig } from './scheduler';
import { FlagError, type OptionGroup } from './types';

export type AllRuntimeChoice = 'auto' | 'remote' | 'containerd' | 'process' | 'simulated';

/** k3s's default pod network, split into a /24 per node by the controller manager */
export const DEFAULT_CLUSTER_CIDR = '10.42.0.0/16';

/** the flags `ballast all` adds to the API server's */
export const allOnlyOptions: OptionGroup = Object.freeze({
  title: 'Ballast all-in-one flags',
  options: [
    option('disable-apiserver', 'bool', 'do not run the API server: the other components use the kubeconfigs an API server wrote in --data-dir', { supported: true }),
    option('disable-controller-manager', 'bool', 'do not run the controller manager', { supported: true }),
    option('disable-scheduler', 'bool', 'do not run the scheduler', { supported: true }),
    option('disable-agent', 'bool', 'do not run the node agent (a control plane without a node)', { supported: true }),
    option('node-name', 'string', 'the node\'s name', { defaultText: 'the host name, lower case', supported: true }),
    option('container-runtime', 'string', 'how the node runs containers: "auto" (a CRI runtime at --container-runtime-endpoint, else containerd at its usual socket, else a containerd Ballast starts when the binary exists and we are root, else "process"), "remote" (the CRI runtime at --container-runtime-endpoint), "containerd" (a containerd Ballast starts, its state in <data-dir>/containerd), "process" (host processes, no isolation) or "simulated" (no processes)', {
      default: 'auto',
      supported: true,
      validate: oneOf('auto', 'remote', 'containerd', 'process', 'simulated'),
    }),
    option('container-runtime-endpoint', 'string', 'the CRI socket of a running containerd (unix://...); with "auto", unset means the usual sockets, then Ballast\'s own containerd', { supported: true }),
    option('offline-images', 'bool', 'for machines that reach no image registry: build a busybox image (ballast.local/busybox:<version>) and the sandbox image (ballast.local/pause:3.2) from the host\'s static busybox (/bin/busybox) and import them into the containerd Ballast starts; OCI archives in <data-dir>/images are imported in any case', { supported: true }),
    option('cluster-cidr', 'string', 'the pods\' address range; the controller manager gives each node a part of it', { default: DEFAULT_CLUSTER_CIDR, supported: true }),
    option('controller-manager-arg', 'stringArray', 'a flag for the controller manager ("--flag=value"), after Ballast\'s own; repeatable', { supported: true }),
    option('scheduler-arg', 'stringArray', 'a flag for the scheduler ("--flag=value"), after Ballast\'s own; repeatable', { supported: true }),
    option('nodeagent-arg', 'stringArray', 'a flag for the node agent ("--flag=value"), after Ballast\'s own; repeatable', { supported: true }),
  ],
});

export const allOptionGroups: readonly OptionGroup[] = Object.freeze([...apiServerOptionGroups.slice(0, 1), allOnlyOptions, ...apiServerOptionGroups.slice(1)]);

/** where `ballast all` keeps what is not the API server's */
export function allPaths(dataDir: string) {
  return {
    certDir: path.join(dataDir, 'pki'),
    agentRoot: path.join(dataDir, 'nodeagent'),
    containerd: path.join(dataDir, 'containerd'),
    images: path.join(dataDir, 'images'),
    kubeconfig: (component: 'controller-manager' | 'scheduler' | 'kubelet') => path.join(dataDir, `${component}.kubeconfig`),
  };
}

export interface AllConfig {
  apiserver: ApiServerConfig;
  /** null: switched off */
  controllerManager: ControllerManagerConfig | null;
  scheduler: SchedulerConfig | null;
  /** the node agent's flags: Ballast's, then (after the runtime's, added at start) the user's */
  nodeAgentArgs: { ours: readonly string[]; user: readonly string[] } | null;
  runApiServer: boolean;
  nodeName: string;
  /** the node agent's kubeconfig: the API server writes kubelet.kubeconfig for this host's name; another --node-name gets its own */
  nodeKubeconfig: string;
  runtime: AllRuntimeChoice;
  runtimeEndpoint?: string;
  offlineImages: boolean;
}

/** the pass-through flags of one component, each a whole `--flag=value` (or `flag=value`) */
function passThrough(parsed: ParsedOptions, name: string): string[] {
  return parsed.list(name).map((arg) => {
    const a = arg.trim();
    if (a === '' || a === '--' || a === '-') throw new FlagError(`--${name} "${arg}": expected a flag such as --v=2`);
    return a.startsWith('-') ? a : `--${a}`;
  });
}

/** parse one component's command line; a bad flag names the pass-through flag it came in */
function componentConfig<C>(flag: string, groups: readonly OptionGroup[], argv: readonly string[], configOf: (p: ParsedOptions) => C): C {
  try {
    return configOf(parseOptions(groups, argv));
  } catch (err) {
    if (err instanceof FlagError) throw new FlagError(`--${flag}: ${err.message}`);
    throw err;
  }
}

/** the settings of `ballast all`: each component's configuration, checked */
export function allConfig(parsed: ParsedOptions, env: NodeJS.ProcessEnv = process.env): AllConfig {
  const runApiServer = !parsed.bool('disable-apiserver');
  const runControllerManager = !parsed.bool('disable-controller-manager');
  const base = apiServerConfig(parsed, env);
  // the controller manager's namespace controller finishes namespaces; without it the API server does
  let apiserver: ApiServerConfig = parsed.isSet('inprocess-namespace-controller') ? base : { ...base, inprocessNamespaceController: !runControllerManager };
  // nodes are reached by address first, as kubeadm and k3s configure it: a --node-name need not resolve
  if (!parsed.isSet('kubelet-preferred-address-types')) {
    apiserver = { ...apiserver, kubelet: { ...apiserver.kubelet, preferredAddressTypes: Object.freeze(['InternalIP', 'ExternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS']) } };
  }
  const paths = allPaths(apiserver.dataDir);
  const certDir = apiserver.certDir;
  const nodeName = (parsed.string('node-name') || os.hostname()).toLowerCase();
  const ca = path.join(certDir, PKI_FILES.caCert);
  const nodeKubeconfig = nodeName === os.hostname().toLowerCase() ? paths.kubeconfig('kubelet') : path.join(apiserver.dataDir, `kubelet-${nodeName}.kubeconfig`);

  const controllerManager = runControllerManager
    ? componentConfig(
        'controller-manager-arg',
        controllerManagerOptionGroups,
        [
          `--kubeconfig=${paths.kubeconfig('controller-manager')}`,
          `--authentication-kubeconfig=${paths.kubeconfig('controller-manager')}`,
          `--authorization-kubeconfig=${paths.kubeconfig('controller-manager')}`,
          '--bind-address=127.0.0.1',
          '--secure-port=10257',
          // one process per data dir (the API server's lock): nothing to elect, and a restart after
          // kill -9 need not wait out the dead process's lease
          '--leader-elect=false',
          '--use-service-account-credentials',
          `--cluster-signing-cert-file=${ca}`,
          `--cluster-signing-key-file=${path.join(certDir, PKI_FILES.caKey)}`,
          `--root-ca-file=${ca}`,
          `--service-account-private-key-file=${path.join(certDir, SA_KEY_FILES.key)}`,
          '--allocate-node-cidrs',
          `--cluster-cidr=${parsed.string('cluster-cidr') || DEFAULT_CLUSTER_CIDR}`,
          `--service-cluster-ip-range=${apiserver.serviceClusterIPRange}`,
          ...passThrough(parsed, 'controller-manager-arg'),
        ],
        controllerManagerConfig,
      )
    : null;
  const scheduler = parsed.bool('disable-scheduler')
    ? null
    : componentConfig(
        'scheduler-arg',
        schedulerOptionGroups,
        [
          `--kubeconfig=${paths.kubeconfig('scheduler')}`,
          `--authentication-kubeconfig=${paths.kubeconfig('scheduler')}`,
          `--authorization-kubeconfig=${paths.kubeconfig('scheduler')}`,
          '--bind-address=127.0.0.1',
          '--secure-port=10259',
          '--port=0',
          '--leader-elect=false',
          ...passThrough(parsed, 'scheduler-arg'),
        ],
        schedulerConfig,
      );
  let nodeAgentArgs: AllConfig['nodeAgentArgs'] = null;
  if (!parsed.bool('disable-agent')) {
    const ours = [
      `--kubeconfig=${nodeKubeconfig}`,
      `--hostname-override=${nodeName}`,
      `--root-dir=${paths.agentRoot}`,
      `--cert-dir=${path.join(paths.agentRoot, 'pki')}`,
      // the API server's kubelet client certificate is signed by the generated CA; every other caller
      // is checked by the API server (TokenReview, SubjectAccessReview), as kubeadm configures kubelet
      `--client-ca-file=${ca}`,
      '--anonymous-auth=false',
      '--authentication-token-webhook',
      '--authorization-mode=Webhook',
      '--read-only-port=0',
      '--fail-swap-on=false',
      '--cgroups-per-qos=false',
      '--enforce-node-allocatable=',
      '--cluster-domain=cluster.local',
      // kubelet 1.27's defaults (our flags keep 1.20's 5 and 10): a Deployment scaled up on the one node
      // starts its pods at the runtime's pace, not at five API requests a second
      '--kube-api-qps=50',
      '--kube-api-burst=100',
      '--event-qps=50',
      '--event-burst=100',
    ];
    nodeAgentArgs = { ours, user: passThrough(parsed, 'nodeagent-arg') };
    // checked now, with a runtime that needs nothing: the chosen one's flags come at start
    allNodeAgentConfig(nodeAgentArgs, ['--container-runtime=process']);
  }
  const runtime = (parsed.string('container-runtime') || 'auto') as AllRuntimeChoice;
  const runtimeEndpoint = parsed.string('container-runtime-endpoint') || undefined;
  if (runtime === 'remote' && !runtimeEndpoint) throw new FlagError('--container-runtime remote needs --container-runtime-endpoint');
  if (!runApiServer && !runControllerManager && !scheduler && !nodeAgentArgs) throw new FlagError('every component is disabled: nothing to run');
  return {
    apiserver,
    controllerManager,
    scheduler,
    nodeAgentArgs,
    runApiServer,
    nodeName,
    nodeKubeconfig,
    runtime,
    runtimeEndpoint,
    offlineImages: parsed.bool('offline-images'),
  };
}

/** the node agent's configuration once the runtime is known */
export function allNodeAgentConfig(args: NonNullable<AllConfig['nodeAgentArgs']>, runtimeArgs: readonly string[]): NodeAgentConfig {
  return componentConfig('nodeagent-arg', nodeAgentOptionGroups, [...args.ours, ...runtimeArgs, ...args.user], (p) => nodeAgentConfig(p));
}
