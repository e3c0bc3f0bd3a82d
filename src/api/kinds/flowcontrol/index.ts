/** flowcontrol.apiserver.k8s.io: FlowSchema and PriorityLevelConfiguration in every version Ballast serves */
import type { KindDefinition } from '../../kind';
import type { FlowcontrolVersion } from './flowcontrol-conversion';
import { flowSchemaKind } from './flowschema';
import { priorityLevelConfigurationKind } from './prioritylevelconfiguration';

const VERSIONS: FlowcontrolVersion[] = ['v1', 'v1beta3', 'v1beta2', 'v1beta1', 'v1alpha1'];

export function flowcontrolKinds(): KindDefinition[] {
  return VERSIONS.flatMap((v) => [flowSchemaKind(v), priorityLevelConfigurationKind(v)]);
}

export { flowcontrolBootstrapObjects } from './flowcontrol-bootstrap';
