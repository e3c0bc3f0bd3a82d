/** core/v1 Container and the types it references: ports, env, resources, mounts, probes, security. */
import type { Definitions, SchemaNode } from '../types';
import {
  atomic, bool, core, int32, int64, intOrString, listMap, mergeList, obj, oneOf, quantity, ref, resourceList, str,
} from '../dsl';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** the fields Container and EphemeralContainer share */
function containerProps(what: string): Record<string, SchemaNode> {
  return {
    args: atomic(str(), `Arguments to the entrypoint of the ${what}; replaces the image's CMD. $(VAR) references are expanded.`),
    command: atomic(str(), `Entrypoint of the ${what}; replaces the image's ENTRYPOINT. Not run in a shell.`),
    env: mergeList(ref(core('EnvVar')), 'name', 'Environment variables to set.'),
    envFrom: atomic(ref(core('EnvFromSource')), 'Sources whose keys all become environment variables; env wins on clashes.'),
    image: str('Container image reference.'),
    imagePullPolicy: oneOf('When to pull the image. Defaults to Always for :latest, else IfNotPresent.', PULL_POLICIES),
    lifecycle: ref(core('Lifecycle'), 'Hooks run after start and before stop.'),
    livenessProbe: ref(core('Probe'), 'Restarts the container when it fails.'),
    name: str(`Name of the ${what}, unique within the pod (a DNS label).`),
    ports: mergeList(ref(core('ContainerPort')), 'containerPort', 'Ports the container exposes (informational, except for hostPort).', {
      keys: ['containerPort', 'protocol'],
    }),
    readinessProbe: ref(core('Probe'), 'Takes the container out of service endpoints while it fails.'),
    resizePolicy: atomic(ref(core('ContainerResizePolicy')), 'How each resource may be resized in place.'),
    resources: ref(core('ResourceRequirements'), 'Compute resources requested and allowed.'),
    restartPolicy: str('Only Always, for init containers that run beside the main ones (sidecars).'),
    securityContext: ref(core('SecurityContext'), 'Security options; they override the pod-level ones.'),
    startupProbe: ref(core('Probe'), 'Other probes wait until this one succeeds once.'),
    stdin: bool('Keep a stdin buffer open for the container.'),
    stdinOnce: bool('Close stdin after the first attached client disconnects.'),
    terminationMessagePath: str('File whose content becomes the termination message. Defaults to /dev/termination-log.'),
    terminationMessagePolicy: oneOf('Where the termination message comes from.', ['FallbackToLogsOnError', 'File']),
    tty: bool('Allocate a TTY; needs stdin.'),
    volumeDevices: mergeList(ref(core('VolumeDevice')), 'devicePath', 'Raw block devices to expose.'),
    volumeMounts: mergeList(ref(core('VolumeMount')), 'mountPath', 'Volumes to mount into the filesystem.'),
    workingDir: str('Working directory; defaults to the image setting.'),
  };
}

const handlerProps = (): Record<string, SchemaNode> => ({
  exec: ref(core('ExecAction'), 'Run a command in the container.'),
  httpGet: ref(core('HTTPGetAction'), 'Send an HTTP GET.'),
  tcpSocket: ref(core('TCPSocketAction'), 'Open a TCP connection.'),
});

export const coreContainerDefinitions: Definitions = {
  [core('Container')]: obj('One container of a pod.', containerProps('container'), { required: ['name'] }),
  [core('EphemeralContainer')]: obj(
    'A temporary container added to a running pod for debugging; no ports, probes or resources.',
    {
      ...containerProps('ephemeral container'),
      targetContainerName: str('Container whose namespaces (e.g. processes) this one joins.'),
    },
    { required: ['name'] },
  ),
  [core('ContainerPort')]: obj(
    'A network port of a container.',
    {
      containerPort: int32('Port number on the pod IP (1-65535).'),
      hostIP: str('Host IP to bind the host port to.'),
      hostPort: int32('Port number on the host, if any.'),
      name: str('A name for the port (an IANA_SVC_NAME), unique in the pod; services can refer to it.'),
      protocol: oneOf('TCP, UDP or SCTP. Defaults to TCP.', PROTOCOLS, { default: 'TCP' }),
    },
    { required: ['containerPort'] },
  ),
  [core('EnvVar')]: obj(
    'One environment variable.',
    {
      name: str('Variable name.'),
      value: str('Literal value; $(VAR) references to earlier variables are expanded.'),
      valueFrom: ref(core('EnvVarSource'), 'Where to read the value from; exclusive with value.'),
    },
    { required: ['name'] },
  ),
  [core('EnvVarSource')]: obj('A source for one environment variable value.', {
    configMapKeyRef: ref(core('ConfigMapKeySelector'), 'A key of a ConfigMap.'),
    fieldRef: ref(core('ObjectFieldSelector'), 'A field of the pod, e.g. metadata.name or status.podIP.'),
    resourceFieldRef: ref(core('ResourceFieldSelector'), 'A resource limit or request of a container.'),
    secretKeyRef: ref(core('SecretKeySelector'), 'A key of a Secret.'),
  }),
  [core('ObjectFieldSelector')]: obj(
    'Picks one field of the object.',
    {
      apiVersion: str('Version the field path is written against. Defaults to v1.'),
      fieldPath: str('Path of the field.'),
    },
    { required: ['fieldPath'], atomic: true },
  ),
  [core('ResourceFieldSelector')]: obj(
    'Picks a resource (limits.cpu, requests.memory...) of a container.',
    {
      containerName: str('The container; required for volumes.'),
      divisor: quantity('Unit the value is expressed in. Defaults to 1.'),
      resource: str('The resource to select.'),
    },
    { required: ['resource'], atomic: true },
  ),
  [core('ConfigMapKeySelector')]: obj(
    'Picks one key of a ConfigMap.',
    {
      key: str('The key.'),
      name: str('Name of the ConfigMap.', { default: '' }),
      optional: bool('When true, a missing ConfigMap or key is not an error.'),
    },
    { required: ['key'], atomic: true },
  ),
  [core('SecretKeySelector')]: obj(
    'Picks one key of a Secret.',
    {
      key: str('The key.'),
      name: str('Name of the Secret.', { default: '' }),
      optional: bool('When true, a missing Secret or key is not an error.'),
    },
    { required: ['key'], atomic: true },
  ),
  [core('EnvFromSource')]: obj('A source of a whole set of environment variables.', {
    configMapRef: ref(core('ConfigMapEnvSource'), 'Every key of this ConfigMap.'),
    prefix: str('Prepended to every variable name taken from the source.'),
    secretRef: ref(core('SecretEnvSource'), 'Every key of this Secret.'),
  }),
  [core('ConfigMapEnvSource')]: obj('A ConfigMap whose keys become environment variables.', {
    name: str('Name of the ConfigMap.', { default: '' }),
    optional: bool('When true, a missing ConfigMap is not an error.'),
  }),
  [core('SecretEnvSource')]: obj('A Secret whose keys become environment variables.', {
    name: str('Name of the Secret.', { default: '' }),
    optional: bool('When true, a missing Secret is not an error.'),
  }),
  [core('ResourceRequirements')]: obj('Compute resources of a container or pod.', {
    claims: listMap(ref(core('ResourceClaim')), ['name'], 'Dynamically allocated resource claims of the pod this container uses.'),
    limits: resourceList('Upper bounds per resource.'),
    requests: resourceList('Amounts reserved per resource; default to the limits when absent.'),
  }),
  [core('ResourceClaim')]: obj(
    'Use of one of the pod resource claims.',
    {
      name: str('Name of an entry in the pod spec resourceClaims.'),
      request: str('One request of the claim, or all of them when empty.'),
    },
    { required: ['name'] },
  ),
  [core('ContainerResizePolicy')]: obj(
    'How a resource of a container may be resized.',
    {
      resourceName: str('cpu or memory.'),
      restartPolicy: str('NotRequired or RestartContainer.'),
    },
    { required: ['resourceName', 'restartPolicy'] },
  ),
  [core('VolumeMount')]: obj(
    'Mounts a pod volume into a container.',
    {
      mountPath: str('Path in the container; must not contain a colon.'),
      mountPropagation: oneOf('How mounts propagate between host and container. Defaults to None.', [
        'Bidirectional', 'HostToContainer', 'None',
      ]),
      name: str('Name of the pod volume.'),
      readOnly: bool('Mount read-only.'),
      recursiveReadOnly: str('Disabled, IfPossible or Enabled: whether read-only applies to submounts.'),
      subPath: str('A path inside the volume to mount instead of its root.'),
      subPathExpr: str('Like subPath, with $(VAR) expansion from the environment; exclusive with subPath.'),
    },
    { required: ['name', 'mountPath'] },
  ),
  [core('VolumeDevice')]: obj(
    'Exposes a raw block volume inside a container.',
    {
      devicePath: str('Device path in the container.'),
      name: str('Name of the pod volume (a persistentVolumeClaim).'),
    },
    { required: ['name', 'devicePath'] },
  ),
  [core('Probe')]: obj('A health check of a container and when to run it.', {
    ...handlerProps(),
    failureThreshold: int32('Consecutive failures counted as failed. Defaults to 3.'),
    grpc: ref(core('GRPCAction'), 'Call the gRPC health service.'),
    initialDelaySeconds: int32('Seconds after start before the first probe.'),
    periodSeconds: int32('Seconds between probes. Defaults to 10.'),
    successThreshold: int32('Consecutive successes counted as succeeded after a failure. Defaults to 1.'),
    terminationGracePeriodSeconds: int64('Grace period after a liveness or startup failure; overrides the pod value.'),
    timeoutSeconds: int32('Seconds before a probe times out. Defaults to 1.'),
  }),
  [core('ExecAction')]: obj('Runs a command inside the container; exit status 0 means success.', {
    command: atomic(str(), 'The command and its arguments, run without a shell.'),
  }),
  [core('HTTPGetAction')]: obj(
    'An HTTP GET request; 2xx and 3xx mean success.',
    {
      host: str('Host to connect to; defaults to the pod IP.'),
      httpHeaders: atomic(ref(core('HTTPHeader')), 'Extra request headers.'),
      path: str('Request path.'),
      port: intOrString('Port number or name.'),
      scheme: oneOf('HTTP or HTTPS. Defaults to HTTP.', ['HTTP', 'HTTPS']),
    },
    { required: ['port'] },
  ),
  [core('HTTPHeader')]: obj(
    'One HTTP header.',
    { name: str('Header name.'), value: str('Header value.') },
    { required: ['name', 'value'] },
  ),
  [core('TCPSocketAction')]: obj(
    'Opens a TCP connection; success when it connects.',
    { host: str('Host to connect to; defaults to the pod IP.'), port: intOrString('Port number or name.') },
    { required: ['port'] },
  ),
  [core('GRPCAction')]: obj(
    'Calls the standard gRPC health check.',
    {
      port: int32('Port of the gRPC service.'),
      service: str('Service name sent in the health request; empty means the server as a whole.', { default: '' }),
    },
    { required: ['port'] },
  ),
  [core('SleepAction')]: obj('Waits a while.', { seconds: int64('Seconds to sleep.') }, { required: ['seconds'] }),
  [core('Lifecycle')]: obj('Actions taken at container lifecycle events.', {
    postStart: ref(core('LifecycleHandler'), 'Runs right after the container is created; failure restarts it.'),
    preStop: ref(core('LifecycleHandler'), 'Runs before the container is stopped; counts against the grace period.'),
  }),
  [core('LifecycleHandler')]: obj('One lifecycle action; exactly one field is set.', {
    ...handlerProps(),
    sleep: ref(core('SleepAction'), 'Wait a number of seconds.'),
  }),
  [core('SecurityContext')]: obj('Security options of one container.', {
    allowPrivilegeEscalation: bool('Whether a process may gain more privileges than its parent (no_new_privs).'),
    appArmorProfile: ref(core('AppArmorProfile'), 'AppArmor profile; overrides the pod setting.'),
    capabilities: ref(core('Capabilities'), 'Linux capabilities to add and drop.'),
    privileged: bool('Run as privileged: like root on the host.'),
    procMount: oneOf('How /proc is masked. Defaults to Default.', ['Default', 'Unmasked']),
    readOnlyRootFilesystem: bool('Mount the root filesystem read-only.'),
    runAsGroup: int64('GID for the container process.'),
    runAsNonRoot: bool('Refuse to start when the process would run as UID 0.'),
    runAsUser: int64('UID for the container process.'),
    seLinuxOptions: ref(core('SELinuxOptions'), 'SELinux context for the container.'),
    seccompProfile: ref(core('SeccompProfile'), 'Seccomp profile; overrides the pod setting.'),
    windowsOptions: ref(core('WindowsSecurityContextOptions'), 'Windows-only settings.'),
  }),
  [core('Capabilities')]: obj('Linux capabilities to add and drop.', {
    add: atomic(str(), 'Capabilities to add.'),
    drop: atomic(str(), 'Capabilities to drop.'),
  }),
  [core('SELinuxOptions')]: obj('An SELinux label.', {
    level: str('SELinux level.'),
    role: str('SELinux role.'),
    type: str('SELinux type.'),
    user: str('SELinux user.'),
  }),
  [core('WindowsSecurityContextOptions')]: obj('Windows security settings.', {
    gmsaCredentialSpec: str('Content of the GMSA credential spec.'),
    gmsaCredentialSpecName: str('Name of the GMSA credential spec.'),
    hostProcess: bool('Run as a Windows host process.'),
    runAsUserName: str('Windows user name for the entrypoint.'),
  }),
  [core('SeccompProfile')]: obj(
    'A seccomp profile.',
    {
      localhostProfile: str('Profile file on the node, for type Localhost.'),
      type: oneOf('Localhost, RuntimeDefault or Unconfined.', ['Localhost', 'RuntimeDefault', 'Unconfined']),
    },
    { required: ['type'] },
  ),
  [core('AppArmorProfile')]: obj(
    'An AppArmor profile.',
    {
      localhostProfile: str('Profile loaded on the node, for type Localhost.'),
      type: oneOf('Localhost, RuntimeDefault or Unconfined.', ['Localhost', 'RuntimeDefault', 'Unconfined']),
    },
    { required: ['type'] },
  ),
};
