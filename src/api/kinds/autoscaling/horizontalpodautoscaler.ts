/**
 * HorizontalPodAutoscaler in autoscaling/v2, v1, v2beta2 and v2beta1 over one storage location
 * (autoscaling/horizontalpodautoscalers, stored as v2 as kube 1.32 stores it). Each version has
 * kube's defaults; validation and the table work on the v2 form (hpa-conversion.ts).
 */
import type { KindDefinition, KubeObject } from '../../kind';
import type { HpaVersion } from './hpa-conversion';
import { keepStatusAnnotations } from './hpa-annotations';
import { hpaFromV2, hpaToV2 } from './hpa-conversion';
import { defaultHpa } from './hpa-defaults';
import { hpaTable } from './hpa-table';
import { validateHpaStatus, validateHpaV2 } from './hpa-validation';

export function horizontalPodAutoscalerKind(version: HpaVersion): KindDefinition {
  const toV2 = (obj: KubeObject): KubeObject => hpaToV2(version, obj);
  return {
    group: 'autoscaling',
    version,
    kind: 'HorizontalPodAutoscaler',
    listKind: 'HorizontalPodAutoscalerList',
    resource: 'horizontalpodautoscalers',
    singular: 'horizontalpodautoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    storage: { group: 'autoscaling', resource: 'horizontalpodautoscalers' },
    storageVersion: 'v2',
    toStorage: toV2,
    fromStorage: (obj) => hpaFromV2(version, obj),
    schemaName: `io.k8s.api.autoscaling.${version}.HorizontalPodAutoscaler`,
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults: (obj) => defaultHpa(version, obj),
      prepareForCreate(obj) {
        // kube: create cannot set status
        obj.status = {};
      },
      // v1 carries part of its status in annotations: they follow the kept status
      ...(version === 'v1' ? { prepareForUpdate: keepStatusAnnotations } : {}),
      validate: (obj, old) => validateHpaV2(toV2(obj), old && toV2(old)),
      validateStatus: (obj) => validateHpaStatus(obj),
    },
    table: hpaTable(toV2),
    defaultGarbageCollectionPolicy: 'Background',
  };
}
