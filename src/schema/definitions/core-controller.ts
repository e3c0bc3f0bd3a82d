/** core/v1 ReplicationController and ComponentStatus. */
import type { Definitions } from '../types';
import { addKind, condition, core, int32, int64, map, mergeList, obj, ref, str } from '../dsl';

const v1 = (kind: string) => ({ group: '', version: 'v1', kind });

export const coreControllerDefinitions: Definitions = {
  [core('ReplicationControllerSpec')]: obj('Desired state of a ReplicationController.', {
    minReadySeconds: int32('Seconds a new pod must be ready, without crashing, to count as available. Defaults to 0.'),
    replicas: int32('Desired number of pods. Defaults to 1.'),
    selector: map('Labels of the pods managed. Defaults to the template labels.', { type: 'string' }, { mapType: 'atomic' }),
    template: ref(core('PodTemplateSpec'), 'Pods created from this template.'),
  }),
  [core('ReplicationControllerStatus')]: obj(
    'Observed state of a ReplicationController.',
    {
      availableReplicas: int32('Pods available for at least minReadySeconds.'),
      conditions: mergeList(ref(core('ReplicationControllerCondition')), 'type', 'Current conditions, e.g. ReplicaFailure.'),
      fullyLabeledReplicas: int32('Pods whose labels match the template labels.'),
      observedGeneration: int64('The generation last acted on by the controller.'),
      readyReplicas: int32('Pods that are ready.'),
      replicas: int32('Pods currently running for this controller.'),
    },
    { required: ['replicas'] },
  ),
  [core('ReplicationControllerCondition')]: condition('A condition of a ReplicationController.', 'Type of the condition.', ['lastTransitionTime']),
  [core('ComponentCondition')]: obj(
    'One health condition of a component.',
    {
      error: str('Error of the health check, when it could not be made.'),
      message: str('What the health check answered.'),
      status: str('True, False or Unknown.'),
      type: str('Type of the condition; only Healthy is known.'),
    },
    { required: ['type', 'status'] },
  ),
};

addKind(coreControllerDefinitions, core(''), v1('ReplicationController'), 'Keeps a number of pod copies running.', {
  spec: ref(core('ReplicationControllerSpec'), 'Desired state.'),
  status: ref(core('ReplicationControllerStatus'), 'Observed state. Read-only.'),
});

addKind(coreControllerDefinitions, core(''), v1('ComponentStatus'), 'Health of a control plane component (deprecated).', {
  conditions: mergeList(ref(core('ComponentCondition')), 'type', 'Health conditions.'),
});
