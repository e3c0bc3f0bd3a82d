/**
 * kube's SetDefaults_CustomResourceDefinition for v1 and v1beta1, plus the status fields Go always
 * writes (acceptedNames' plural and kind, conditions, storedVersions).
 */
import type { KubeObject } from '../kind';
import type { CrdStatus, Names, SpecV1, SpecV1beta1, WebhookClientConfig } from './types';
import { isObject } from './types';

function defaultNames(names: Names | undefined): void {
  if (!isObject(names)) return;
  if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
}

/** kube's SetDefaults_ServiceReference: port 443 */
function defaultClientConfig(cc: WebhookClientConfig | undefined): void {
  if (isObject(cc) && isObject(cc.service) && cc.service.port === undefined) cc.service.port = 443;
}

/** the first storage version joins storedVersions when none are recorded; Go's non-omitempty fields */
function defaultStatus(obj: KubeObject, versions: unknown): void {
  if (obj.status !== undefined && !isObject(obj.status)) return;
  const status = (obj.status ??= {}) as CrdStatus;
  if (!Array.isArray(status.storedVersions) || status.storedVersions.length === 0) {
    const storage = Array.isArray(versions) ? versions.find((v) => isObject(v) && v.storage === true) : undefined;
    status.storedVersions = storage && typeof storage.name === 'string' ? [storage.name] : [];
  }
  if (!Array.isArray(status.conditions)) status.conditions = [];
  const accepted = (status.acceptedNames = isObject(status.acceptedNames) ? status.acceptedNames : {}) as Names;
  if (accepted.plural === undefined) accepted.plural = '';
  if (accepted.kind === undefined) accepted.kind = '';
}

export function defaultCrdV1(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec as SpecV1;
  defaultNames(spec.names);
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  if (isObject(spec.conversion) && isObject(spec.conversion.webhook)) defaultClientConfig(spec.conversion.webhook.clientConfig);
  defaultStatus(obj, spec.versions);
}

export function defaultCrdV1beta1(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec as SpecV1beta1;
  if (!spec.scope) spec.scope = 'Namespaced';
  defaultNames(spec.names);
  if ((!Array.isArray(spec.versions) || spec.versions.length === 0) && spec.version) {
    spec.versions = [{ name: spec.version, storage: true, served: true }];
  }
  if (!spec.version && Array.isArray(spec.versions) && spec.versions.length > 0 && isObject(spec.versions[0])) spec.version = spec.versions[0].name;
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  if (isObject(spec.conversion)) {
    if (spec.conversion.strategy === 'Webhook' && (!Array.isArray(spec.conversion.conversionReviewVersions) || spec.conversion.conversionReviewVersions.length === 0)) {
      spec.conversion.conversionReviewVersions = ['v1beta1'];
    }
    defaultClientConfig(spec.conversion.webhookClientConfig);
  }
  if (spec.preserveUnknownFields === undefined || spec.preserveUnknownFields === null) spec.preserveUnknownFields = true;
  defaultStatus(obj, spec.versions);
}
