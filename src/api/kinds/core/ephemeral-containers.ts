/**
 * kube's rules for ephemeral containers (validateEphemeralContainers and
 * ValidatePodEphemeralContainersUpdate): each is a valid container whose name is unique across all
 * the pod's containers, whose target container exists, and which sets none of the fields that make
 * a container part of the workload (ports, resources, probes, lifecycle, restartPolicy, resizePolicy,
 * subPath mounts). Through the pods/ephemeralcontainers subresource they may be added, never
 * changed or removed; static (mirror) pods take none.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { duplicate, forbidden, invalid, notFound, required } from '../../validation/field-errors';
import { isDNS1123Label } from '../../validation/names';
import { validateContainer } from '../pod-validation';
import { arrAt, isObj, objAt, str } from '../util';
import type { Obj } from '../util';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NOT_FOR_EPHEMERAL = 'cannot be set for an Ephemeral Container';

/**
 * the EphemeralContainerCommon fields kube does not allow, in its struct order (kube's allow-list
 * check reports every set field outside the list; restartPolicy is reported twice, as kube does)
 */
const DISALLOWED = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** kube compares with the field's zero value: an empty list, map or struct is unset */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObj(value)) return Object.values(value).some(isSet);
  return value !== '' && value !== 0 && value !== false;
}

export function validateEphemeralContainers(spec: Obj, field: string): StatusCause[] {
  const ephemeral = arrAt(spec, 'ephemeralContainers');
  if (ephemeral.length === 0) return [];
  const causes: StatusCause[] = [];
  const others = new Set<string>();
  for (const key of ['containers', 'initContainers']) for (const c of arrAt(spec, key)) if (isObj(c)) others.add(str(c.name));
  const all = new Set(others);
  const volumes = new Set(arrAt(spec, 'volumes').map((v) => (isObj(v) ? str(v.name) : '')));
  ephemeral.forEach((e, i) => {
    const p = `${field}[${i}]`;
    const c = isObj(e) ? e : {};
    const name = str(c.name);
    if (!name) causes.push(required(`${p}.name`, ''));
    else for (const msg of isDNS1123Label(name)) causes.push(invalid(`${p}.name`, name, msg));
    causes.push(...validateContainer(c, p, volumes));
    if (all.has(name)) causes.push(duplicate(`${p}.name`, name));
    else all.add(name);
    const targetName = str(c.targetContainerName);
    if (targetName && !others.has(targetName)) causes.push(notFound(`${p}.targetContainerName`, targetName));
    for (const f of DISALLOWED) if (isSet(c[f])) causes.push(forbidden(`${p}.${f}`, NOT_FOR_EPHEMERAL));
    arrAt(c, 'volumeMounts').forEach((m, j) => {
      if (isObj(m) && str(m.subPath)) causes.push(forbidden(`${p}.volumeMounts[${j}].subPath`, NOT_FOR_EPHEMERAL));
      if (isObj(m) && str(m.subPathExpr)) causes.push(forbidden(`${p}.volumeMounts[${j}].subPathExpr`, NOT_FOR_EPHEMERAL));
    });
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) causes.push(forbidden(`${p}.restartPolicy`, NOT_FOR_EPHEMERAL));
  });
  return causes;
}

/** the change rules of the subresource, after the pod itself was validated */
export function validateEphemeralContainersUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  if (old.metadata?.annotations && Object.hasOwn(old.metadata.annotations, MIRROR_POD_ANNOTATION)) {
    return [forbidden('', 'static pods do not support ephemeral containers')];
  }
  const causes: StatusCause[] = [];
  const byName = new Map<string, unknown>();
  for (const c of arrAt(objAt(pod, 'spec'), 'ephemeralContainers')) if (isObj(c)) byName.set(str(c.name), c);
  for (const c of arrAt(objAt(old, 'spec'), 'ephemeralContainers')) {
    if (!isObj(c)) continue;
    const name = str(c.name);
    const now = byName.get(name);
    if (now === undefined) causes.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!jsonEqual(now, c)) causes.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return causes;
}
