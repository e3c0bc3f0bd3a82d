/**
 * The `nodeipam` controller. As kube 1.20, it starts only with --allocate-node-cidrs, and Ballast
 * has only the RangeAllocator (the cloud allocators need a cloud provider).
 */
import type { ControllerDefinition } from '../types';
import { buildCidrSets, RangeAllocator } from './range-allocator';

export const nodeIpamController: ControllerDefinition = {
  name: 'nodeipam',
  async start(ctx) {
    const s = ctx.settings.nodeIpam;
    if (!s.allocateNodeCidrs) {
      ctx.logger.warn('Skipping "nodeipam"');
      return;
    }
    if (s.cidrAllocatorType !== 'RangeAllocator') throw new Error(`unsupported CIDR allocator type "${s.cidrAllocatorType}": Ballast has only RangeAllocator`);
    await new RangeAllocator(ctx, buildCidrSets(s)).run();
  },
};
