/**
 * NodePorts (kube 1.20): a pod asking for host ports fits only a node where none of them is held
 * already (0.0.0.0 conflicts with every address on the same protocol and port).
 */
import type { KubeObject } from '../../../client/types';
import { podHostPorts, type NodeInfo } from '../../framework/node-info';
import { errorStatus, unschedulable, type Result } from '../../framework/status';
import type { CycleState, PluginFactory, StateData } from '../../framework/types';

export const NODE_PORTS = 'NodePorts';
export const ERR_REASON_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";
const PRE_FILTER_KEY = `PreFilter${NODE_PORTS}`;

type HostPort = { ip?: string; protocol?: string; port: number };

class PreFilterState implements StateData {
  constructor(readonly ports: readonly HostPort[]) {}
  clone(): StateData {
    return this;
  }
}

/** kube's fitsPorts: none of the wanted host ports is in use on the node */
export function fitsPorts(wanted: readonly HostPort[], nodeInfo: NodeInfo): boolean {
  for (let i = 0; i < wanted.length; i++) {
    const p = wanted[i];
    if (nodeInfo.usedPorts.conflicts(p.ip, p.protocol, p.port)) return false;
  }
  return true;
}

export const newNodePorts: PluginFactory = () => ({
  name: NODE_PORTS,

  preFilter(state: CycleState, pod: KubeObject): Result {
    state.write(PRE_FILTER_KEY, new PreFilterState(podHostPorts(pod)));
    return undefined;
  },

  preFilterExtensions: () => undefined,

  filter(state: CycleState, _pod: KubeObject, nodeInfo: NodeInfo): Result {
    const s = state.read<PreFilterState>(PRE_FILTER_KEY);
    if (!s) return errorStatus(new Error(`error reading "${PRE_FILTER_KEY}" from cycleState: not found`));
    return fitsPorts(s.ports, nodeInfo) ? undefined : unschedulable(ERR_REASON_NODE_PORTS);
  },
});
