/** apps/v1: Deployment, ReplicaSet, DaemonSet, StatefulSet, ControllerRevision. */
import type { Definitions } from '../types';
import {
  RAW_EXTENSION, addKind, atomic, bool, condition, core, int32, int64, intOrString, meta, mergeList, obj, oneOf, ref,
  str, withPatchStrategy,
} from '../dsl';

const APPS = 'io.k8s.api.apps.v1.';
const apps = (name: string): string => APPS + name;
const gvk = (kind: string) => ({ group: 'apps', version: 'v1', kind });

const selector = () => ref(meta('LabelSelector'), 'Selects the pods managed; must match the template labels. Immutable.');
const template = () => ref(core('PodTemplateSpec'), 'Pods created from this template.');
const minReady = () => int32('Seconds a new pod must be ready, without crashing, to count as available. Defaults to 0.');
const historyLimit = (what: string) => int32(`Old ${what} kept for rollback.`);
const collisionCount = () => int32('Bumped when revision names collide, to make a new name.');
const observedGeneration = () => int64('The generation last acted on by the controller.');

export const appsDefinitions: Definitions = {
  [apps('DeploymentSpec')]: obj(
    'Desired state of a Deployment.',
    {
      minReadySeconds: minReady(),
      paused: bool('Pause rollouts.'),
      progressDeadlineSeconds: int32('Seconds without progress before the rollout is marked failed. Defaults to 600.'),
      replicas: int32('Desired number of pods. Defaults to 1.'),
      revisionHistoryLimit: historyLimit('ReplicaSets'),
      selector: selector(),
      strategy: withPatchStrategy(ref(apps('DeploymentStrategy'), 'How old pods are replaced by new ones.'), 'retainKeys'),
      template: template(),
    },
    { required: ['selector', 'template'] },
  ),
  [apps('DeploymentStrategy')]: obj('How a Deployment replaces pods.', {
    rollingUpdate: ref(apps('RollingUpdateDeployment'), 'Settings for RollingUpdate.'),
    type: oneOf('Recreate or RollingUpdate. Defaults to RollingUpdate.', ['Recreate', 'RollingUpdate']),
  }),
  [apps('RollingUpdateDeployment')]: obj('Rolling update bounds.', {
    maxSurge: intOrString('Pods allowed above the desired count, as a number or percentage. Defaults to 25%.'),
    maxUnavailable: intOrString('Pods allowed to be unavailable, as a number or percentage. Defaults to 25%.'),
  }),
  [apps('DeploymentStatus')]: obj('Observed state of a Deployment.', {
    availableReplicas: int32('Pods available for at least minReadySeconds.'),
    collisionCount: collisionCount(),
    conditions: mergeList(ref(apps('DeploymentCondition')), 'type', 'Available, Progressing, ReplicaFailure.'),
    observedGeneration: observedGeneration(),
    readyReplicas: int32('Pods that are ready.'),
    replicas: int32('Pods targeted (old and new).'),
    unavailableReplicas: int32('Pods still needed for full availability.'),
    updatedReplicas: int32('Pods from the current template.'),
  }),
  [apps('DeploymentCondition')]: condition('A condition of a Deployment.', 'Type of the condition.', ['lastUpdateTime', 'lastTransitionTime']),

  [apps('ReplicaSetSpec')]: obj(
    'Desired state of a ReplicaSet.',
    {
      minReadySeconds: minReady(),
      replicas: int32('Desired number of pods. Defaults to 1.'),
      selector: selector(),
      template: template(),
    },
    { required: ['selector'] },
  ),
  [apps('ReplicaSetStatus')]: obj(
    'Observed state of a ReplicaSet.',
    {
      availableReplicas: int32('Pods available for at least minReadySeconds.'),
      conditions: mergeList(ref(apps('ReplicaSetCondition')), 'type', 'Current conditions.'),
      fullyLabeledReplicas: int32('Pods whose labels match the template labels.'),
      observedGeneration: observedGeneration(),
      readyReplicas: int32('Pods that are ready.'),
      replicas: int32('Pods currently owned.'),
    },
    { required: ['replicas'] },
  ),
  [apps('ReplicaSetCondition')]: condition('A condition of a ReplicaSet.', 'Type of the condition.', ['lastTransitionTime']),

  [apps('DaemonSetSpec')]: obj(
    'Desired state of a DaemonSet.',
    {
      minReadySeconds: minReady(),
      revisionHistoryLimit: historyLimit('revisions'),
      selector: selector(),
      template: template(),
      updateStrategy: ref(apps('DaemonSetUpdateStrategy'), 'How pods are replaced on template changes.'),
    },
    { required: ['selector', 'template'] },
  ),
  [apps('DaemonSetUpdateStrategy')]: obj('How a DaemonSet replaces pods.', {
    rollingUpdate: ref(apps('RollingUpdateDaemonSet'), 'Settings for RollingUpdate.'),
    type: oneOf('OnDelete or RollingUpdate. Defaults to RollingUpdate.', ['OnDelete', 'RollingUpdate']),
  }),
  [apps('RollingUpdateDaemonSet')]: obj('Rolling update bounds of a DaemonSet.', {
    maxSurge: intOrString('Nodes that may run an old and a new pod at once. Defaults to 0.'),
    maxUnavailable: intOrString('Nodes that may be without an available pod. Defaults to 1.'),
  }),
  [apps('DaemonSetStatus')]: obj(
    'Observed state of a DaemonSet.',
    {
      collisionCount: collisionCount(),
      conditions: mergeList(ref(apps('DaemonSetCondition')), 'type', 'Current conditions.'),
      currentNumberScheduled: int32('Nodes running a daemon pod that should.'),
      desiredNumberScheduled: int32('Nodes that should run a daemon pod.'),
      numberAvailable: int32('Nodes whose daemon pod is available.'),
      numberMisscheduled: int32('Nodes running a daemon pod that should not.'),
      numberReady: int32('Nodes whose daemon pod is ready.'),
      numberUnavailable: int32('Nodes that should run an available daemon pod but do not.'),
      observedGeneration: observedGeneration(),
      updatedNumberScheduled: int32('Nodes running the current template.'),
    },
    { required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'] },
  ),
  [apps('DaemonSetCondition')]: condition('A condition of a DaemonSet.', 'Type of the condition.', ['lastTransitionTime']),

  [apps('StatefulSetSpec')]: obj(
    'Desired state of a StatefulSet.',
    {
      minReadySeconds: minReady(),
      ordinals: ref(apps('StatefulSetOrdinals'), 'Numbering of the replicas.'),
      persistentVolumeClaimRetentionPolicy: ref(
        apps('StatefulSetPersistentVolumeClaimRetentionPolicy'),
        'What happens to claims from volumeClaimTemplates on delete and scale down.',
      ),
      podManagementPolicy: oneOf('OrderedReady or Parallel pod creation. Defaults to OrderedReady.', ['OrderedReady', 'Parallel']),
      replicas: int32('Desired number of pods. Defaults to 1.'),
      revisionHistoryLimit: historyLimit('revisions'),
      selector: selector(),
      serviceName: str('Headless Service giving the pods their network identity.'),
      template: template(),
      updateStrategy: ref(apps('StatefulSetUpdateStrategy'), 'How pods are replaced on template changes.'),
      volumeClaimTemplates: atomic(ref(core('PersistentVolumeClaim')), 'Claims created per pod and mounted by name.'),
    },
    { required: ['selector', 'template', 'serviceName'] },
  ),
  [apps('StatefulSetUpdateStrategy')]: obj('How a StatefulSet replaces pods.', {
    rollingUpdate: ref(apps('RollingUpdateStatefulSetStrategy'), 'Settings for RollingUpdate.'),
    type: oneOf('OnDelete or RollingUpdate. Defaults to RollingUpdate.', ['OnDelete', 'RollingUpdate']),
  }),
  [apps('RollingUpdateStatefulSetStrategy')]: obj('Rolling update settings of a StatefulSet.', {
    maxUnavailable: intOrString('Pods that may be unavailable during the update. Defaults to 1.'),
    partition: int32('Only ordinals at or above this are updated. Defaults to 0.'),
  }),
  [apps('StatefulSetPersistentVolumeClaimRetentionPolicy')]: obj('Lifecycle of claims made from templates.', {
    whenDeleted: str('Retain or Delete when the StatefulSet is deleted. Defaults to Retain.'),
    whenScaled: str('Retain or Delete when replicas are scaled down. Defaults to Retain.'),
  }),
  [apps('StatefulSetOrdinals')]: obj('Replica numbering.', {
    start: int32('First ordinal. Defaults to 0.'),
  }),
  [apps('StatefulSetStatus')]: obj(
    'Observed state of a StatefulSet.',
    {
      availableReplicas: int32('Pods available for at least minReadySeconds.'),
      collisionCount: collisionCount(),
      conditions: mergeList(ref(apps('StatefulSetCondition')), 'type', 'Current conditions.'),
      currentReplicas: int32('Pods at currentRevision.'),
      currentRevision: str('Revision of the pods below the update point.'),
      observedGeneration: observedGeneration(),
      readyReplicas: int32('Pods that are ready.'),
      replicas: int32('Pods created.'),
      updateRevision: str('Revision of the current template.'),
      updatedReplicas: int32('Pods at updateRevision.'),
    },
    { required: ['replicas'] },
  ),
  [apps('StatefulSetCondition')]: condition('A condition of a StatefulSet.', 'Type of the condition.', ['lastTransitionTime']),
};

addKind(appsDefinitions, APPS, gvk('Deployment'), 'Declarative updates for a replicated set of pods, through ReplicaSets.', {
  spec: ref(apps('DeploymentSpec'), 'Desired state.'),
  status: ref(apps('DeploymentStatus'), 'Observed state. Read-only.'),
});
addKind(appsDefinitions, APPS, gvk('ReplicaSet'), 'Keeps a number of identical pods running.', {
  spec: ref(apps('ReplicaSetSpec'), 'Desired state.'),
  status: ref(apps('ReplicaSetStatus'), 'Observed state. Read-only.'),
});
addKind(appsDefinitions, APPS, gvk('DaemonSet'), 'Runs one copy of a pod on each eligible node.', {
  spec: ref(apps('DaemonSetSpec'), 'Desired state.'),
  status: ref(apps('DaemonSetStatus'), 'Observed state. Read-only.'),
});
addKind(appsDefinitions, APPS, gvk('StatefulSet'), 'Pods with stable names and storage, managed in order.', {
  spec: ref(apps('StatefulSetSpec'), 'Desired state.'),
  status: ref(apps('StatefulSetStatus'), 'Observed state. Read-only.'),
});
addKind(
  appsDefinitions,
  APPS,
  gvk('ControllerRevision'),
  'An immutable snapshot of a controller template, kept for rollback.',
  {
    data: ref(RAW_EXTENSION, 'The serialized state.'),
    revision: int64('Revision number.'),
  },
  ['revision'],
);
