/**
 * The two plugins every profile has: PrioritySort orders the active queue (higher priority first,
 * then the earlier arrival), DefaultBinder binds through the pods/binding subresource.
 */
import { resourcePath } from '../../client/rest-client';
import { RESOURCES } from '../../client/resources';
import { podPriority } from '../framework/resource';
import { errorStatus } from '../framework/status';
import type { FrameworkHandle, Plugin, PluginFactory } from '../framework/types';

export const PRIORITY_SORT = 'PrioritySort';
export const DEFAULT_BINDER = 'DefaultBinder';

export const prioritySort: PluginFactory = () => ({
  name: PRIORITY_SORT,
  less(a, b) {
    const pa = podPriority(a.pod);
    const pb = podPriority(b.pod);
    return pa > pb || (pa === pb && a.timestamp < b.timestamp);
  },
});

export const defaultBinder: PluginFactory = (_args, handle: FrameworkHandle): Plugin => ({
  name: DEFAULT_BINDER,
  async bind(_state, pod, nodeName) {
    const meta = pod.metadata ?? {};
    try {
      await handle.client.request('POST', resourcePath(RESOURCES.pods, meta.namespace, meta.name, 'binding'), {
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { namespace: meta.namespace, name: meta.name, uid: meta.uid }, target: { kind: 'Node', name: nodeName } },
      });
      return undefined;
    } catch (err) {
      return errorStatus(err);
    }
  },
});

export const CORE_PLUGINS: Record<string, PluginFactory> = {
  [PRIORITY_SORT]: prioritySort,
  [DEFAULT_BINDER]: defaultBinder,
};
