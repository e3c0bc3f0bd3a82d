/** the preemption plugins, by kube name, for the scheduler's registry */
import type { PluginFactory } from '../../framework/types';
import { DEFAULT_PREEMPTION, defaultPreemptionFactory } from './default-preemption';

export { DEFAULT_PREEMPTION, DefaultPreemption, newDefaultPreemption, type DefaultPreemptionOptions } from './default-preemption';
export { defaultPreemptionArgs, type DefaultPreemptionArgs } from './args';
export type { PreemptionActions } from './actions';

export const PREEMPTION_PLUGINS: Record<string, PluginFactory> = {
  [DEFAULT_PREEMPTION]: defaultPreemptionFactory,
};
