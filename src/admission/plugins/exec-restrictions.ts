/**
 * DenyEscalatingExec and DenyExecOnPrivileged (kube's plugin/pkg/admission/exec): CONNECT requests
 * to pods/exec and pods/attach are refused when the pod runs a privileged container (both plugins)
 * or shares the host's network, PID or IPC namespace (DenyEscalatingExec only).
 */
import type { KubeObject } from '../../api/kind';
import { isObj } from '../../api/kinds/util';
import { validating } from '../chain';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { admissionForbidden } from '../forbidden';
import type { Admission } from '../types';

interface ExecPolicy {
  hostNetwork: boolean;
  hostPID: boolean;
  hostIPC: boolean;
  privileged: boolean;
}

/** a container of the pod (init and ephemeral ones too) asks for securityContext.privileged */
export function isPrivilegedPod(pod: KubeObject): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  return ['initContainers', 'containers', 'ephemeralContainers'].some(
    (key) => Array.isArray(spec[key]) && (spec[key] as unknown[]).some((c) => isObj(c) && isObj(c.securityContext) && c.securityContext.privileged === true),
  );
}

function denyExec(ctx: AdmissionPluginContext, policy: ExecPolicy): Admission {
  return validating(async (a) => {
    if (a.operation !== 'CONNECT' || a.kind.group !== '' || a.kind.resource !== 'pods') return;
    if (a.subresource !== 'exec' && a.subresource !== 'attach') return;
    const pod = await ctx.objects.get(CORE('pods'), a.namespace, a.name);
    // kube wraps the failed lookup in its Forbidden
    if (!pod) throw admissionForbidden(a, `pods "${a.name}" not found`);
    const spec = isObj(pod.spec) ? pod.spec : {};
    if (policy.hostNetwork && spec.hostNetwork === true) throw admissionForbidden(a, 'cannot exec into or attach to a container using host network');
    if (policy.hostPID && spec.hostPID === true) throw admissionForbidden(a, 'cannot exec into or attach to a container using host pid');
    if (policy.hostIPC && spec.hostIPC === true) throw admissionForbidden(a, 'cannot exec into or attach to a container using host ipc');
    if (policy.privileged && isPrivilegedPod(pod)) throw admissionForbidden(a, 'cannot exec into or attach to a privileged container');
  });
}

export function denyEscalatingExec(ctx: AdmissionPluginContext): Admission {
  return denyExec(ctx, { hostNetwork: true, hostPID: true, hostIPC: true, privileged: true });
}

export function denyExecOnPrivileged(ctx: AdmissionPluginContext): Admission {
  return denyExec(ctx, { hostNetwork: false, hostPID: false, hostIPC: false, privileged: true });
}
