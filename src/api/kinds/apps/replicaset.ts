/** apps/v1 ReplicaSet: defaults, validation, scale, `status.replicas` field label and table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable } from '../../validation/field-errors';
import { selectorString } from '../label-selector';
import { defaultTemplateIn, nonNegative, validatePodTemplate, validateSelectorAndTemplate } from '../pod-template';
import { age, ageColumn, column, containerCells, containerColumns, nameColumn } from '../table-format';
import { ensureObj, int, objAt, setDefault, str } from '../util';
import { replicasScale } from './scale';

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateSelectorAndTemplate(spec, 'spec', 'empty selector is invalid for deployment'),
    ...validatePodTemplate(spec.template, 'spec.template', {
      restartPolicies: ['Always'],
      forbidActiveDeadlineSeconds: 'activeDeadlineSeconds in ReplicaSet is not Supported',
    }),
  ];
  if (old) causes.push(...immutable('spec.selector', spec.selector, objAt(old, 'spec')?.selector));
  return causes;
}

export function replicaSetKind(): KindDefinition {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    listKind: 'ReplicaSetList',
    resource: 'replicasets',
    singular: 'replicaset',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    storage: { group: 'apps', resource: 'replicasets' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.apps.v1.ReplicaSet',
    tracksGeneration: true,
    statusSubresource: true,
    scale: replicasScale,
    strategy: {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        setDefault(spec, 'replicas', 1);
        defaultTemplateIn(spec);
      },
      prepareForCreate(obj) {
        obj.status = { replicas: 0 };
      },
      validate,
    },
    selectableFields(obj) {
      return { 'status.replicas': String(int(objAt(obj, 'status')?.replicas)) };
    },
    table: {
      columns: [
        nameColumn(),
        column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
        column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
        column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
        ageColumn(),
        ...containerColumns(true),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const [names, images] = containerCells(objAt(objAt(spec, 'template'), 'spec'));
        return [
          str(obj.metadata?.name),
          int(spec.replicas),
          int(status.replicas),
          int(status.readyReplicas),
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
