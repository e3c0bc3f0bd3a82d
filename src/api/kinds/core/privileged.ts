/**
 * --allow-privileged=false (kube's capabilities.AllowPrivileged, read by ValidateSecurityContext):
 * a container asking for `securityContext.privileged: true` is refused by validation, in pods and in
 * the pod templates of workloads, with kube's `Forbidden: disallowed by cluster policy`.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import type { StatusCause } from '../../errors';
import { forbidden } from '../../validation/field-errors';
import { arrAt, isObj, path } from '../util';

/** where each kind keeps its pod spec (kind -> path of keys) */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '/Pod': ['spec'],
  '/PodTemplate': ['template', 'spec'],
  '/ReplicationController': ['spec', 'template', 'spec'],
  'apps/Deployment': ['spec', 'template', 'spec'],
  'apps/DaemonSet': ['spec', 'template', 'spec'],
  'apps/ReplicaSet': ['spec', 'template', 'spec'],
  'apps/StatefulSet': ['spec', 'template', 'spec'],
  'batch/Job': ['spec', 'template', 'spec'],
  'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
});

/** the privileged containers of a pod spec, as `containers[i].securityContext.privileged` causes under `field` */
export function privilegedContainerCauses(spec: unknown, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) {
    arrAt(spec, key).forEach((c, i) => {
      if (isObj(c) && isObj(c.securityContext) && c.securityContext.privileged === true) {
        causes.push(forbidden(`${field}.${key}[${i}].securityContext.privileged`, 'disallowed by cluster policy'));
      }
    });
  }
  return causes;
}

/** the kinds, those with pod specs validating that none of their containers is privileged */
export function disallowPrivileged(kinds: KindDefinition[]): KindDefinition[] {
  return kinds.map((kind) => {
    const keys = POD_SPEC_PATHS[`${kind.group}/${kind.kind}`];
    if (!keys) return kind;
    const validate = kind.strategy.validate.bind(kind.strategy);
    return {
      ...kind,
      strategy: {
        ...kind.strategy,
        validate: (obj: KubeObject, old?: KubeObject) => [...validate(obj, old), ...privilegedContainerCauses(path(obj, ...keys), keys.join('.'))],
      },
    };
  });
}
