/**
 * admissionregistration.k8s.io v1 and v1beta1: MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration, stored as v1. The versions have the same fields (conversion only
 * changes apiVersion); their defaults and validation differ (webhook-defaults.ts,
 * webhook-validation.ts). Calling the webhooks is the admission work's, not this module's.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, clone, str } from '../util';
import type { WebhookVersion } from './webhook-defaults';
import { defaultConfiguration } from './webhook-defaults';
import { validateConfiguration } from './webhook-validation';

const GROUP = 'admissionregistration.k8s.io';

function withApiVersion(obj: KubeObject, version: WebhookVersion): KubeObject {
  const out = clone(obj);
  out.apiVersion = `${GROUP}/${version}`;
  return out;
}

function webhookConfigurationKind(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration', version: WebhookVersion): KindDefinition {
  const mutating = kind === 'MutatingWebhookConfiguration';
  const resource = `${kind.toLowerCase()}s`;
  return {
    group: GROUP,
    version,
    kind,
    listKind: `${kind}List`,
    resource,
    singular: kind.toLowerCase(),
    namespaced: false,
    shortNames: [],
    // kube lists webhook configurations under `kubectl get api-extensions` (since 1.21)
    categories: ['api-extensions'],
    storage: { group: GROUP, resource },
    storageVersion: 'v1',
    fromStorage: (obj) => withApiVersion(obj, version),
    toStorage: (obj) => withApiVersion(obj, 'v1'),
    schemaName: `io.k8s.api.admissionregistration.${version}.${kind}`,
    // kube's webhook configuration strategies bump generation on any spec (webhooks) change
    tracksGeneration: true,
    statusSubresource: false,
    strategy: {
      defaults: (obj) => defaultConfiguration(obj, version, mutating),
      validate: (obj, old) => validateConfiguration(obj, version, mutating, old),
    },
    table: {
      columns: [nameColumn(), column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in the configuration'), ageColumn()],
      cells: (obj, now) => [str(obj.metadata?.name), arrAt(obj, 'webhooks').length, age(obj, now)],
    },
  };
}

/** in kube's discovery order: mutating, then validating, v1 before v1beta1 */
export function admissionRegistrationKinds(): KindDefinition[] {
  return (['v1', 'v1beta1'] as const).flatMap((v) => [
    webhookConfigurationKind('MutatingWebhookConfiguration', v),
    webhookConfigurationKind('ValidatingWebhookConfiguration', v),
  ]);
}
