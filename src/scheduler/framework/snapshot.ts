/**
 * A cycle's frozen view of the cluster (kube's cache.Snapshot): NodeInfos by name and as a list,
 * plus the lists of nodes holding pods with (anti-)affinity, which the affinity plugins walk.
 * The cache updates one snapshot in place between cycles, copying only NodeInfos that changed.
 */
import type { KubeObject } from '../../client/types';
import { NodeInfo } from './node-info';
import type { NodeInfoLister } from './types';

export class Snapshot implements NodeInfoLister {
  /** node name -> NodeInfo */
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  withAffinity: NodeInfo[] = [];
  withRequiredAntiAffinity: NodeInfo[] = [];
  /** the largest NodeInfo generation copied in */
  generation = 0;

  /** a snapshot of these nodes with these pods on them (pods name their node in spec.nodeName); for tests and tools */
  static of(nodes: readonly KubeObject[], pods: readonly KubeObject[] = []): Snapshot {
    const s = new Snapshot();
    for (const node of nodes) s.nodeInfoMap.set(node.metadata?.name ?? '', new NodeInfo(node));
    for (const pod of pods) {
      const nodeName = ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
      let info = s.nodeInfoMap.get(nodeName);
      if (!info) s.nodeInfoMap.set(nodeName, (info = new NodeInfo()));
      info.addPod(pod);
    }
    s.rebuildLists();
    return s;
  }

  /** recompute the lists from the map (nodes without a Node object are left out) */
  rebuildLists(): void {
    this.nodeInfoList = [];
    this.withAffinity = [];
    this.withRequiredAntiAffinity = [];
    for (const info of this.nodeInfoMap.values()) {
      if (!info.node) continue;
      this.nodeInfoList.push(info);
      if (info.podsWithAffinity.length > 0) this.withAffinity.push(info);
      if (info.podsWithRequiredAntiAffinity.length > 0) this.withRequiredAntiAffinity.push(info);
    }
  }

  list(): readonly NodeInfo[] {
    return this.nodeInfoList;
  }

  havePodsWithAffinityList(): readonly NodeInfo[] {
    return this.withAffinity;
  }

  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[] {
    return this.withRequiredAntiAffinity;
  }

  get(nodeName: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(nodeName);
  }
}
