/**
 * Every plugin the scheduler knows, by kube's name (the in-tree registry of kube-scheduler 1.20).
 */
import type { PluginFactory } from '../framework/types';
import { CORE_PLUGINS } from './core';
import { NODE_PLUGINS } from './node';
import { POD_PLUGINS } from './pod';
import { PREEMPTION_PLUGINS } from './preemption';
import { VOLUME_PLUGINS } from './volume';

export function pluginRegistry(): Map<string, PluginFactory> {
  return new Map(Object.entries({ ...CORE_PLUGINS, ...NODE_PLUGINS, ...POD_PLUGINS, ...PREEMPTION_PLUGINS, ...VOLUME_PLUGINS }));
}
