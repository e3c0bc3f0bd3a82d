/** apps/v1 Deployment: kube's defaults (SetDefaults_Deployment), validation, scale and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, immutable, invalid, notSupported, required } from '../../validation/field-errors';
import { selectorString } from '../label-selector';
import { defaultTemplateIn, nonNegative, validatePodTemplate, validateSelectorAndTemplate } from '../pod-template';
import { age, ageColumn, column, containerCells, containerColumns, nameColumn } from '../table-format';
import { ensureObj, int, isObj, objAt, setDefault, str } from '../util';
import { intOrPercentValue, notMoreThan100Percent, validatePositiveIntOrPercent } from './int-or-percent';
import { replicasScale } from './scale';

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'replicas', 1);
  const strategy = ensureObj(spec, 'strategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', '25%');
    setDefault(ru, 'maxSurge', '25%');
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultTemplateIn(spec);
}

function validateStrategy(strategy: unknown): StatusCause[] {
  const field = 'spec.strategy';
  if (!isObj(strategy)) return [required(`${field}.type`, '')];
  switch (strategy.type) {
    case 'Recreate':
      return strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null
        ? [forbidden(`${field}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")]
        : [];
    case 'RollingUpdate': {
      const ru = strategy.rollingUpdate;
      if (!isObj(ru)) return [required(`${field}.rollingUpdate`, 'this should be defaulted and never be nil')];
      const p = `${field}.rollingUpdate`;
      const causes = [
        ...validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`),
        ...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`),
      ];
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        causes.push(invalid(`${p}.maxUnavailable`, ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
      }
      causes.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
      return causes;
    }
    default:
      return [notSupported(`${field}.type`, strategy.type ?? '', ['Recreate', 'RollingUpdate'])];
  }
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...validateSelectorAndTemplate(spec, 'spec', 'empty selector is invalid for deployment'),
    ...validatePodTemplate(spec.template, 'spec.template', {
      restartPolicies: ['Always'],
      forbidActiveDeadlineSeconds: 'activeDeadlineSeconds in ReplicaSet is not Supported',
    }),
    ...validateStrategy(spec.strategy),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  ];
  const pds = spec.progressDeadlineSeconds;
  if (pds !== undefined && pds !== null) {
    causes.push(...nonNegative(pds, 'spec.progressDeadlineSeconds'));
    if (typeof pds === 'number' && pds <= int(spec.minReadySeconds)) {
      causes.push(invalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
    }
  }
  // apps/v1 makes the selector immutable
  if (old) causes.push(...immutable('spec.selector', spec.selector, objAt(old, 'spec')?.selector));
  return causes;
}

export function deploymentKind(): KindDefinition {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    listKind: 'DeploymentList',
    resource: 'deployments',
    singular: 'deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    storage: { group: 'apps', resource: 'deployments' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.apps.v1.Deployment',
    tracksGeneration: true,
    statusSubresource: true,
    scale: replicasScale,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        // kube's deploymentStrategy.PrepareForCreate: status starts empty
        obj.status = {};
      },
      validate,
    },
    table: {
      columns: [
        nameColumn(),
        column('Ready', 'string', 'Number of the pod with ready state'),
        column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
        column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
        ageColumn(),
        ...containerColumns(true),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const [names, images] = containerCells(objAt(objAt(spec, 'template'), 'spec'));
        return [
          str(obj.metadata?.name),
          `${int(status.readyReplicas)}/${int(spec.replicas)}`,
          int(status.updatedReplicas),
          int(status.availableReplicas),
          age(obj, now),
          names,
          images,
          selectorString(spec.selector),
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
