/** apps/v1 DaemonSet: defaults (RollingUpdate 1/0, history 10), validation and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable, invalid, notSupported, required } from '../../validation/field-errors';
import { selectorString } from '../label-selector';
import { defaultTemplateIn, nonNegative, validatePodTemplate, validateSelectorAndTemplate } from '../pod-template';
import { age, ageColumn, column, containerCells, containerColumns, formatLabels, nameColumn } from '../table-format';
import { ensureObj, int, isObj, objAt, setDefault, str } from '../util';
import { intOrPercentValue, notMoreThan100Percent, validatePositiveIntOrPercent } from './int-or-percent';

/** apps/v1's form of kube's DaemonSet spec.templateGeneration */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  const strategy = ensureObj(spec, 'updateStrategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', 1);
    setDefault(ru, 'maxSurge', 0);
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultTemplateIn(spec);
}

function validateUpdateStrategy(strategy: unknown): StatusCause[] {
  const field = 'spec.updateStrategy';
  if (!isObj(strategy)) return [required(`${field}.type`, '')];
  if (strategy.type === 'OnDelete') return [];
  if (strategy.type !== 'RollingUpdate') return [notSupported(`${field}.type`, strategy.type ?? '', ['RollingUpdate', 'OnDelete'])];
  const ru = strategy.rollingUpdate;
  if (!isObj(ru)) return [required(`${field}.rollingUpdate`, '')];
  const p = `${field}.rollingUpdate`;
  const causes = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`),
    ...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`),
    ...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`),
    ...notMoreThan100Percent(ru.maxSurge, `${p}.maxSurge`),
  ];
  // kube: exactly one of maxSurge and maxUnavailable is non-zero
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) causes.push(invalid(`${p}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) causes.push(required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [
    ...validateSelectorAndTemplate(spec, 'spec', 'empty selector is invalid for daemonset'),
    ...validatePodTemplate(spec.template, 'spec.template', {
      restartPolicies: ['Always'],
      forbidActiveDeadlineSeconds: 'activeDeadlineSeconds in DaemonSet is not Supported',
    }),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...nonNegative(spec.templateGeneration, 'spec.templateGeneration'),
    ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
    ...validateUpdateStrategy(spec.updateStrategy),
  ];
  if (old) causes.push(...immutable('spec.selector', spec.selector, objAt(old, 'spec')?.selector));
  return causes;
}

export function daemonSetKind(): KindDefinition {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    listKind: 'DaemonSetList',
    resource: 'daemonsets',
    singular: 'daemonset',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    storage: { group: 'apps', resource: 'daemonsets' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.apps.v1.DaemonSet',
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        obj.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
        // kube's internal spec.templateGeneration, which apps/v1 carries as this annotation
        obj.metadata = { ...obj.metadata, annotations: { ...(obj.metadata?.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: '1' } };
      },
      prepareForUpdate(obj, old) {
        // a new template is a new template generation; otherwise the old one stays
        const before = Number(old.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? '0') || 0;
        const changed = JSON.stringify(objAt(objAt(obj, 'spec'), 'template') ?? null) !== JSON.stringify(objAt(objAt(old, 'spec'), 'template') ?? null);
        const generation = String(changed ? before + 1 : before);
        obj.metadata = { ...obj.metadata, annotations: { ...(obj.metadata?.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: generation } };
      },
      validate,
    },
    table: {
      columns: [
        nameColumn(),
        column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
        column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
        column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
        column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
        column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
        column('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
        ageColumn(),
        ...containerColumns(true),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const podSpec = objAt(objAt(spec, 'template'), 'spec');
        const [names, images] = containerCells(podSpec);
        return [
          str(obj.metadata?.name),
          int(status.desiredNumberScheduled),
          int(status.currentNumberScheduled),
          int(status.numberReady),
          int(status.updatedNumberScheduled),
          int(status.numberAvailable),
          formatLabels(podSpec?.nodeSelector),
          age(obj, now),
          names,
          images,
          selectorString(spec.selector) || '<none>',
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
