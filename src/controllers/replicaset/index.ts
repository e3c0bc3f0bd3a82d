/** The replicaset and replicationcontroller controllers: one controller code, two kinds (as kube's). */
import { EventRecorder } from '../../client/events';
import { RESOURCES } from '../../client/resources';
import type { ControllerDefinition } from '../types';
import { ReplicaSetController } from './replica-set-controller';

export const replicaSetController: ControllerDefinition = {
  name: 'replicaset',
  start(ctx) {
    return new ReplicaSetController({ ctx, ref: RESOURCES.replicaSets, workers: ctx.settings.concurrentReplicaSetSyncs }).run();
  },
};

export const replicationControllerController: ControllerDefinition = {
  name: 'replicationcontroller',
  start(ctx) {
    // kube's events about ReplicationControllers come from `replication-controller`
    const recorder = new EventRecorder(ctx.client, { component: 'replication-controller' }, ctx.logger);
    return new ReplicaSetController({ ctx: { ...ctx, recorder }, ref: RESOURCES.replicationControllers, workers: ctx.settings.concurrentRcSyncs }).run();
  },
};
