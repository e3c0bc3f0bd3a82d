/**
 * kube's RangeAllocator (nodeipam/ipam/range_allocator.go): each node without a pod CIDR gets one
 * subnet of each cluster CIDR (one per family when dual stack), written as spec.podCIDR and
 * spec.podCIDRs; subnets already on nodes are marked used at start, and those of deleted nodes are
 * released. The service range is never handed out. When a range is exhausted the node gets the
 * event CIDRNotAvailable (from `cidrAllocator`, as kube's), and is tried again on its next update.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import { EventRecorder } from '../../client/events';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { CidrSet, overlaps, parseCidr } from './cidr-set';
import { nodeMaskSizes, parseClusterCidrs } from './mask-sizes';

/** kube's cidrUpdateRetries */
const UPDATE_RETRIES = 3;
const WORKERS = 4;

const podCidrsOf = (node: KubeObject): string[] => {
  const spec = (node.spec ?? {}) as { podCIDR?: string; podCIDRs?: string[] };
  return spec.podCIDRs?.length ? spec.podCIDRs : spec.podCIDR ? [spec.podCIDR] : [];
};

const nodeRef = (node: KubeObject): KubeObject => ({ kind: 'Node', metadata: { name: node.metadata?.name, uid: node.metadata?.uid ?? node.metadata?.name } });

/** the cluster CIDR sets, with the service ranges taken out (filterOutServiceRange) */
export function buildCidrSets(s: ControllerContext['settings']['nodeIpam']): CidrSet[] {
  const clusters = parseClusterCidrs(s.clusterCidrs);
  const masks = nodeMaskSizes(clusters, s);
  const sets = clusters.map((c, i) => new CidrSet(c, masks[i]!));
  for (const svc of (s.serviceClusterIpRange ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '')) {
    const range = parseCidr(svc);
    for (const set of sets) if (overlaps(set.cluster, range)) set.occupy(range);
  }
  return sets;
}

export class RangeAllocator {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #recorder: EventRecorder;
  readonly #sets: CidrSet[];
  readonly #nodes: SharedInformer;
  readonly #queue = new WorkQueue<string>();
  /** subnets handed to a node whose write the cache has not shown yet, by node name */
  readonly #pending = new Map<string, { uid: string; cidrs: string[] }>();

  constructor(ctx: ControllerContext, sets: CidrSet[]) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    this.#sets = sets;
    this.#recorder = new EventRecorder(ctx.client, { component: 'cidrAllocator' }, ctx.logger);
    this.#nodes = ctx.informers.informerFor(RESOURCES.nodes);
    this.#nodes.addEventHandler({
      add: (node) => this.#queue.add(node.metadata?.name ?? ''),
      update: (_old, node) => this.#queue.add(node.metadata?.name ?? ''),
      delete: (node) => this.#releaseNode(node),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    // the subnets nodes hold already are taken before anything is handed out
    for (const node of this.#nodes.store.list()) {
      if (podCidrsOf(node).length === 0) this.#log.info({ node: node.metadata?.name }, `Node ${node.metadata?.name} has no CIDR, ignoring`);
      else this.#occupy(node);
    }
    this.#log.info({ cidrs: this.#ctx.settings.nodeIpam.clusterCidrs }, 'Starting range CIDR allocator');
    await runWorkers(this.#queue, WORKERS, (name) => this.#sync(name), (key, err) => this.#log.error({ err, key }, 'error allocating a node CIDR'));
  }

  #occupy(node: KubeObject): void {
    podCidrsOf(node).forEach((cidr, i) => {
      try {
        this.#sets[i]?.occupy(cidr);
      } catch (err) {
        this.#log.info({ node: node.metadata?.name, cidr, err: (err as Error).message }, 'could not mark a node CIDR as used');
      }
    });
  }

  #release(cidrs: readonly string[]): void {
    cidrs.forEach((cidr, i) => {
      try {
        this.#sets[i]?.release(cidr);
      } catch (err) {
        this.#log.info({ cidr, err: (err as Error).message }, 'could not release a node CIDR');
      }
    });
  }

  #releaseNode(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    const cidrs = podCidrsOf(node);
    this.#log.info({ node: name, cidrs }, `release CIDR ${cidrs.join(',')} for node:${name}`);
    this.#release(cidrs);
    const pending = this.#pending.get(name);
    this.#pending.delete(name);
    if (pending && pending.cidrs.join() !== cidrs.join()) this.#release(pending.cidrs);
  }

  /** AllocateOrOccupyCIDR and updateCIDRsAllocation */
  async #sync(name: string): Promise<void> {
    const node = this.#nodes.store.get(name);
    if (!node) return;
    const uid = node.metadata?.uid ?? '';
    const pending = this.#pending.get(name);
    const have = podCidrsOf(node);
    if (have.length > 0) {
      this.#occupy(node);
      if (pending) {
        this.#pending.delete(name);
        if (pending.cidrs.join() !== have.join()) {
          this.#log.info({ node: name }, `Node ${name} already has a CIDR allocated ${have.join(',')}. Releasing the new one.`);
          this.#release(pending.cidrs);
        }
      }
      return;
    }
    let cidrs = pending?.uid === uid ? pending.cidrs : undefined;
    if (!cidrs) {
      if (pending) this.#release(pending.cidrs);
      cidrs = [];
      for (const [idx, set] of this.#sets.entries()) {
        try {
          cidrs.push(set.allocateNext());
        } catch (err) {
          this.#release(cidrs);
          this.#pending.delete(name);
          this.#recorder.event(nodeRef(node), 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
          // kube tries again on the node's next update, not with backoff
          this.#log.error({ node: name }, `failed to allocate cidr from cluster cidr at idx:${idx}: ${(err as Error).message}`);
          return;
        }
      }
      this.#pending.set(name, { uid, cidrs });
    }
    let lastErr: unknown;
    for (let attempt = 0; attempt < UPDATE_RETRIES; attempt++) {
      try {
        await this.#ctx.client.patch(RESOURCES.nodes, undefined, name, 'strategic', { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } });
        this.#log.info({ node: name, cidrs }, `Set node ${name} PodCIDR to ${cidrs.join(',')}`);
        return;
      } catch (err) {
        if (isNotFound(err)) break;
        lastErr = err;
      }
    }
    this.#recorder.event(nodeRef(node), 'Normal', 'CIDRAssignmentFailed', `Node ${name} status is now: CIDRAssignmentFailed`);
    this.#pending.delete(name);
    this.#release(cidrs);
    if (lastErr) throw lastErr;
  }
}
