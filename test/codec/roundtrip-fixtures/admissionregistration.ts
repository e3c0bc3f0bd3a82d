/** round-trip fixtures of admissionregistration.k8s.io v1 and v1beta1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


function webhook(mutating: boolean) {
  return {
    name: 'pods.policy.example.com',
    clientConfig: {
      service: { namespace: 'policy', name: 'webhook', path: '/validate', port: 8443 },
      caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\n...\n').toString('base64'),
    },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/ephemeralcontainers'], scope: 'Namespaced' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: { matchExpressions: [{ key: 'policy', operator: 'NotIn', values: ['off'] }] },
    objectSelector: { matchLabels: { checked: 'true' } },
    sideEffects: 'None',
    timeoutSeconds: 0,
    admissionReviewVersions: ['v1', 'v1beta1'],
    matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
    ...(mutating ? { reinvocationPolicy: 'IfNeeded' } : {}),
  };
}

function versionFixtures(version: 'v1' | 'v1beta1'): Fixtures {
  const apiVersion = `admissionregistration.k8s.io/${version}`;
  return {
    [`${apiVersion}/MutatingWebhookConfiguration`]: {
      apiVersion,
      kind: 'MutatingWebhookConfiguration',
      metadata: fixtureMeta('pod-policy'),
      webhooks: [webhook(true), { ...webhook(true), name: 'url.policy.example.com', clientConfig: { url: 'https://policy.example.com/mutate' } }],
    },
    [`${apiVersion}/ValidatingWebhookConfiguration`]: {
      apiVersion,
      kind: 'ValidatingWebhookConfiguration',
      metadata: fixtureMeta('pod-policy'),
      webhooks: [webhook(false)],
    },
  };
}

export const admissionRegistrationFixtures: Fixtures = { ...versionFixtures('v1'), ...versionFixtures('v1beta1') };
