/**
 * kube's defaults of a webhook, which differ per version (pkg/apis/admissionregistration/v1 and
 * v1beta1 defaults.go): v1 fails closed (Fail, Equivalent, 10s) and leaves sideEffects and
 * admissionReviewVersions to the user; v1beta1 ignores failures (Ignore, Exact, 30s) and fills
 * sideEffects Unknown and admissionReviewVersions [v1beta1]. Both default empty selectors, rule
 * scope `*`, service port 443 and, for mutating webhooks, reinvocationPolicy Never.
 */
import type { KubeObject } from '../../kind';
import { arrAt, isObj, objAt, setDefault } from '../util';

export type WebhookVersion = 'v1' | 'v1beta1';

export function defaultWebhook(hook: Record<string, unknown>, version: WebhookVersion, mutating: boolean): void {
  const v1 = version === 'v1';
  setDefault(hook, 'failurePolicy', v1 ? 'Fail' : 'Ignore');
  setDefault(hook, 'matchPolicy', v1 ? 'Equivalent' : 'Exact');
  setDefault(hook, 'namespaceSelector', {});
  setDefault(hook, 'objectSelector', {});
  if (!v1) setDefault(hook, 'sideEffects', 'Unknown');
  setDefault(hook, 'timeoutSeconds', v1 ? 10 : 30);
  if (!v1 && arrAt(hook, 'admissionReviewVersions').length === 0) hook.admissionReviewVersions = ['v1beta1'];
  if (mutating) setDefault(hook, 'reinvocationPolicy', 'Never');
  for (const r of arrAt(hook, 'rules')) if (isObj(r)) setDefault(r, 'scope', '*');
  const service = objAt(objAt(hook, 'clientConfig'), 'service');
  if (service) setDefault(service, 'port', 443);
}

export function defaultConfiguration(obj: KubeObject, version: WebhookVersion, mutating: boolean): void {
  for (const hook of arrAt(obj, 'webhooks')) if (isObj(hook)) defaultWebhook(hook, version, mutating);
}
