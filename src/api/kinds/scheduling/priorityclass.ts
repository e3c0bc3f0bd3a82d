/**
 * PriorityClass, cluster-scoped, served as scheduling.k8s.io/v1, v1beta1 and v1alpha1 (same fields)
 * and stored as v1. kube's defaulting (preemptionPolicy PreemptLowerPriority) and validation: names
 * starting with `system-` are only kube's own classes with their exact value and globalDefault,
 * user classes are at most 1000000000, value and preemptionPolicy are immutable. That only one
 * class is the global default is kube's Priority admission plugin's rule, not validation's: not
 * checked here. The system classes cannot be deleted (kube's REST Delete override).
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, immutable, notSupported, required } from '../../validation/field-errors';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { sameFieldsConversion } from '../same-fields-conversion';
import { setDefault, str } from '../util';
import {
  HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASSES, SYSTEM_PRIORITY_CLASS_PREFIX, systemPriorityClassError,
} from './system-priority-classes';

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

function defaults(obj: KubeObject): void {
  setDefault(obj, 'preemptionPolicy', 'PreemptLowerPriority');
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = str(obj.metadata?.name);
  const value = typeof obj.value === 'number' ? obj.value : 0;
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const err = systemPriorityClassError(name, value, obj.globalDefault === true);
    if (err) {
      causes.push(forbidden('metadata.name', `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${err}`));
    }
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    causes.push(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = obj.preemptionPolicy;
  if (policy !== undefined && policy !== null) {
    if (policy === '') causes.push(required('preemptionPolicy', ''));
    else if (!PREEMPTION_POLICIES.includes(str(policy))) causes.push(notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  }
  if (old) {
    const oldValue = typeof old.value === 'number' ? old.value : 0;
    if (value !== oldValue) causes.push(forbidden('value', 'may not be changed in an update.'));
    causes.push(...immutable('preemptionPolicy', obj.preemptionPolicy, old.preemptionPolicy));
  }
  return causes;
}

export function priorityClassKind(version: 'v1' | 'v1beta1' | 'v1alpha1'): KindDefinition {
  const apiVersion = `scheduling.k8s.io/${version}`;
  return {
    group: 'scheduling.k8s.io',
    version,
    kind: 'PriorityClass',
    listKind: 'PriorityClassList',
    resource: 'priorityclasses',
    singular: 'priorityclass',
    namespaced: false,
    shortNames: ['pc'],
    categories: [],
    storage: { group: 'scheduling.k8s.io', resource: 'priorityclasses' },
    storageVersion: 'v1',
    ...sameFieldsConversion(apiVersion, 'scheduling.k8s.io/v1'),
    schemaName: `io.k8s.api.scheduling.${version}.PriorityClass`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults, validate },
    deleteForbidden: (name) =>
      SYSTEM_PRIORITY_CLASSES.some((c) => c.name === name) ? 'this is a system priority class and cannot be deleted' : undefined,
    table: {
      columns: [
        nameColumn(),
        column('Value', 'integer', 'Priority of the pods of the class.'),
        column('Global-Default', 'boolean', 'Pods without a class get this one.'),
        ageColumn(),
        column('PreemptionPolicy', 'string', 'Whether pods of the class preempt lower-priority pods.'),
      ],
      cells: (obj, now) => [
        str(obj.metadata?.name),
        typeof obj.value === 'number' ? obj.value : 0,
        obj.globalDefault === true,
        age(obj, now),
        str(obj.preemptionPolicy),
      ],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
