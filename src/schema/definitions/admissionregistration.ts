/**
 * admissionregistration.k8s.io v1 and v1beta1: MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration. v1beta1 reuses v1's RuleWithOperations (a Go type alias, so its
 * definition name is v1's); everything else is per version.
 */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, bytes, int32, meta, mergeList, obj, ref, str } from '../dsl';

const GROUP = 'admissionregistration.k8s.io';
const V1 = 'io.k8s.api.admissionregistration.v1.';

const ruleWithOperations = (): SchemaNode =>
  obj('Operations on resources a webhook is called for.', {
    apiGroups: atomic(str(), 'API groups; * means all.'),
    apiVersions: atomic(str(), 'API versions; * means all.'),
    operations: atomic(str(), 'CREATE, UPDATE, DELETE, CONNECT, or * for all.'),
    resources: atomic(str(), 'Resources, resource/subresource, or * forms such as */scale.'),
    scope: str('Cluster, Namespaced or * (default).'),
  });

function versionDefinitions(version: 'v1' | 'v1beta1'): Definitions {
  const p = `io.k8s.api.admissionregistration.${version}.`;
  const common = (): Record<string, SchemaNode> => ({
    admissionReviewVersions: atomic(str(), 'AdmissionReview versions the webhook accepts, in order of preference.'),
    clientConfig: ref(`${p}WebhookClientConfig`, 'How to reach the webhook.'),
    failurePolicy: str(`What to do when the call fails: Ignore or Fail. Defaults to ${version === 'v1' ? 'Fail' : 'Ignore'}.`),
    matchConditions: mergeList(ref(`${p}MatchCondition`), 'name', 'CEL conditions that must all hold for the webhook to be called.'),
    matchPolicy: str(`How rules match other versions of a resource: Exact or Equivalent. Defaults to ${version === 'v1' ? 'Equivalent' : 'Exact'}.`),
    name: str('Fully qualified name of the webhook, e.g. imagepolicy.example.com.'),
    namespaceSelector: ref(meta('LabelSelector'), 'Namespaces whose objects are sent; empty selects all.'),
    objectSelector: ref(meta('LabelSelector'), 'Objects sent, by their labels; empty selects all.'),
    rules: atomic(ref(`${V1}RuleWithOperations`), 'Operations and resources the webhook is called for.'),
    sideEffects: str('None, NoneOnDryRun (and, in v1beta1, Some or Unknown).'),
    timeoutSeconds: int32(`Seconds to wait for the webhook, 1 to 30. Defaults to ${version === 'v1' ? 10 : 30}.`),
  });
  const required = version === 'v1' ? ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] : ['name', 'clientConfig'];
  const defs: Definitions = {
    [`${p}ServiceReference`]: obj(
      'A Service in the cluster that serves the webhook.',
      {
        name: str('Name of the service.'),
        namespace: str('Namespace of the service.'),
        path: str('URL path sent to the service.'),
        port: int32('Port of the service; defaults to 443.'),
      },
      { required: ['namespace', 'name'] },
    ),
    [`${p}WebhookClientConfig`]: obj('Where the webhook is and how to trust it; exactly one of url and service.', {
      caBundle: bytes('PEM CA bundle to verify the webhook server certificate; the system roots when empty.'),
      service: ref(`${p}ServiceReference`, 'A service in the cluster.'),
      url: str('https URL of the webhook outside the cluster.'),
    }),
    [`${p}MatchCondition`]: obj(
      'A named CEL expression deciding whether a request is sent to the webhook.',
      {
        expression: str('CEL expression that evaluates to a bool.'),
        name: str('Identifier of the condition, unique in the webhook.'),
      },
      { required: ['name', 'expression'] },
    ),
    [`${p}ValidatingWebhook`]: obj('A webhook that accepts or rejects requests.', common(), { required }),
    [`${p}MutatingWebhook`]: obj(
      'A webhook that may change objects before they are stored.',
      {
        ...common(),
        reinvocationPolicy: str('Never (default) or IfNeeded: call again when later plugins changed the object.'),
      },
      { required },
    ),
  };
  const gvk = (kind: string) => ({ group: GROUP, version, kind });
  addKind(defs, p, gvk('ValidatingWebhookConfiguration'), 'Validating admission webhooks.', {
    webhooks: mergeList(ref(`${p}ValidatingWebhook`), 'name', 'The webhooks, by unique name.'),
  });
  addKind(defs, p, gvk('MutatingWebhookConfiguration'), 'Mutating admission webhooks.', {
    webhooks: mergeList(ref(`${p}MutatingWebhook`), 'name', 'The webhooks, by unique name.'),
  });
  return defs;
}

export const admissionRegistrationDefinitions: Definitions = {
  [`${V1}RuleWithOperations`]: ruleWithOperations(),
  ...versionDefinitions('v1'),
  ...versionDefinitions('v1beta1'),
};
