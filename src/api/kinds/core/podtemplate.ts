/** core/v1 PodTemplate: the pod template's defaults and kube's ValidatePodTemplate, kubectl's table. */
import type { KindDefinition } from '../../kind';
import { defaultPodTemplate } from '../pod-defaults';
import { POD_RESTART_POLICIES, validatePodTemplate } from '../pod-template';
import { column, containerCells, formatLabels, nameColumn } from '../table-format';
import { ensureObj, objAt, str } from '../util';

export function podTemplateKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'PodTemplate',
    listKind: 'PodTemplateList',
    resource: 'podtemplates',
    singular: 'podtemplate',
    namespaced: true,
    shortNames: [],
    categories: [],
    storage: { group: '', resource: 'podtemplates' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.PodTemplate',
    // kube's podTemplateStrategy sets generation 1 and bumps it when the template changes
    tracksGeneration: true,
    statusSubresource: false,
    strategy: {
      defaults(obj) {
        defaultPodTemplate(ensureObj(obj, 'template'));
      },
      validate(obj) {
        // kube validates the template struct even when absent: its empty spec has no containers
        return validatePodTemplate(obj.template ?? {}, 'template', { restartPolicies: POD_RESTART_POLICIES });
      },
    },
    table: {
      columns: [
        nameColumn(),
        column('Containers', 'string', 'Names of each container in the template.'),
        column('Images', 'string', 'Images referenced by each container in the template.'),
        column('Pod Labels', 'string', 'The labels for the pod template.'),
      ],
      cells(obj) {
        const template = objAt(obj, 'template');
        const [names, images] = containerCells(objAt(template, 'spec'));
        return [str(obj.metadata?.name), names, images, formatLabels(objAt(template, 'metadata')?.labels)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
