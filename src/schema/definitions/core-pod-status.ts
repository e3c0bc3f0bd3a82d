/** core/v1 PodStatus and ContainerStatus with their states. */
import type { Definitions } from '../types';
import {
  atomic, bool, condition, core, int32, int64, listMap, mergeList, obj, oneOf, ref, resourceList, str, time,
} from '../dsl';

export const corePodStatusDefinitions: Definitions = {
  [core('PodStatus')]: obj('Observed state of a pod.', {
    conditions: mergeList(ref(core('PodCondition')), 'type', 'Current conditions (PodScheduled, Initialized, ContainersReady, Ready...).'),
    containerStatuses: atomic(ref(core('ContainerStatus')), 'Status of each main container.'),
    ephemeralContainerStatuses: atomic(ref(core('ContainerStatus')), 'Status of each ephemeral container.'),
    hostIP: str('Primary IP of the node the pod is on.'),
    hostIPs: mergeList(ref(core('HostIP')), 'ip', 'IPs of the node the pod is on.', { listType: 'atomic' }),
    initContainerStatuses: atomic(ref(core('ContainerStatus')), 'Status of each init container.'),
    message: str('Human-readable note about why the pod is in its state.'),
    nominatedNodeName: str('Node where preemption made room for this pod.'),
    phase: oneOf('Coarse lifecycle phase.', ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown']),
    podIP: str('Primary IP of the pod.'),
    podIPs: mergeList(ref(core('PodIP')), 'ip', 'IPs of the pod, at most one per family.'),
    qosClass: oneOf('Quality of service class computed from the resources.', ['BestEffort', 'Burstable', 'Guaranteed']),
    reason: str('CamelCase reason for the state, e.g. Evicted.'),
    resize: str('Progress of an in-place resize.'),
    resourceClaimStatuses: mergeList(ref(core('PodResourceClaimStatus')), 'name', 'Claims created for the pod.', {
      strategy: 'merge,retainKeys',
    }),
    startTime: time('When the node agent accepted the pod.'),
  }),
  [core('PodCondition')]: condition('A condition of a pod.', 'Type of the condition.', ['lastProbeTime', 'lastTransitionTime']),
  [core('PodIP')]: obj('One pod IP.', { ip: str('The address.') }, { required: ['ip'] }),
  [core('HostIP')]: obj('One node IP.', { ip: str('The address.') }, { required: ['ip'] }),
  [core('PodResourceClaimStatus')]: obj(
    'The ResourceClaim created for a pod resource claim.',
    {
      name: str('Name of the pod resource claim entry.'),
      resourceClaimName: str('Name of the generated claim, if one was needed.'),
    },
    { required: ['name'] },
  ),
  [core('ContainerStatus')]: obj(
    'Observed state of one container.',
    {
      allocatedResources: resourceList('Resources the node allocated to the container.'),
      allocatedResourcesStatus: mergeList(ref(core('ResourceStatus')), 'name', 'Health of allocated resources.'),
      containerID: str('Runtime id of the container, as <type>://<id>.'),
      image: str('Image the container runs.'),
      imageID: str('Resolved id of that image.'),
      lastState: ref(core('ContainerState'), 'The previous state, e.g. the last termination.'),
      name: str('Container name.'),
      ready: bool('Whether the readiness probe passes.'),
      resources: ref(core('ResourceRequirements'), 'Resources actually configured in the runtime.'),
      restartCount: int32('How many times the container restarted.'),
      started: bool('Whether the startup probe has passed.'),
      state: ref(core('ContainerState'), 'Current state.'),
      user: ref(core('ContainerUser'), 'Identity the first process runs as.'),
      volumeMounts: mergeList(ref(core('VolumeMountStatus')), 'mountPath', 'Mounts as set up.'),
    },
    { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] },
  ),
  [core('ContainerState')]: obj('State of a container; at most one field is set (waiting by default).', {
    running: ref(core('ContainerStateRunning'), 'The container is running.'),
    terminated: ref(core('ContainerStateTerminated'), 'The container has exited.'),
    waiting: ref(core('ContainerStateWaiting'), 'The container is not running yet.'),
  }),
  [core('ContainerStateWaiting')]: obj('A waiting container.', {
    message: str('Why it waits, in words.'),
    reason: str('Why it waits, e.g. ContainerCreating or CrashLoopBackOff.'),
  }),
  [core('ContainerStateRunning')]: obj('A running container.', {
    startedAt: time('When it last (re)started.'),
  }),
  [core('ContainerStateTerminated')]: obj(
    'An exited container.',
    {
      containerID: str('Runtime id of the container.'),
      exitCode: int32('Exit status.'),
      finishedAt: time('When it exited.'),
      message: str('Termination message.'),
      reason: str('Short reason, e.g. Completed or OOMKilled.'),
      signal: int32('Signal that ended it, if any.'),
      startedAt: time('When it started.'),
    },
    { required: ['exitCode'] },
  ),
  [core('VolumeMountStatus')]: obj(
    'A mount as set up in the container.',
    {
      mountPath: str('Path in the container.'),
      name: str('Volume name.'),
      readOnly: bool('Whether read-only.'),
      recursiveReadOnly: str('Whether read-only applies to submounts.'),
    },
    { required: ['name', 'mountPath'] },
  ),
  [core('ContainerUser')]: obj('Identity of a container process.', {
    linux: ref(core('LinuxContainerUser'), 'Linux identity.'),
  }),
  [core('LinuxContainerUser')]: obj(
    'Linux UID, GID and groups.',
    {
      gid: int64('Primary group id.'),
      supplementalGroups: atomic(int64(), 'Supplementary group ids.'),
      uid: int64('User id.'),
    },
    { required: ['uid', 'gid'] },
  ),
  [core('ResourceStatus')]: obj(
    'Health of the devices behind one allocated resource.',
    {
      name: str('Resource name.'),
      resources: listMap(ref(core('ResourceHealth')), ['resourceID'], 'One entry per device.'),
    },
    { required: ['name'] },
  ),
  [core('ResourceHealth')]: obj(
    'Health of one device.',
    {
      health: str('Healthy, Unhealthy or Unknown.'),
      resourceID: str('Id of the device.'),
    },
    { required: ['resourceID'] },
  ),
};
