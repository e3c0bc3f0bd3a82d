/** Core kinds answered without storage: componentstatuses (health probes) and bindings (pods/binding). */
export { withVirtualKinds } from './with-virtual-kinds';
export type { VirtualKindsOptions } from './with-virtual-kinds';
export type { ComponentProbe, ProbeResult } from './component-statuses';
