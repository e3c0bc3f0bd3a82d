/** apiextensions.k8s.io v1 and v1beta1 CustomResourceDefinition, with every form of the schema wrappers */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';

const schema = {
  type: 'object',
  description: 'A cron tab.',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', maxLength: 64 },
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, default: 1 },
        ratio: { type: 'number', multipleOf: 0.5, exclusiveMinimum: true, minimum: 0 },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        mode: { type: 'string', enum: ['fast', 'slow'], nullable: true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 5, minItems: 0 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        strict: { type: 'object', additionalProperties: false },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        limit: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self <= 100', message: 'too big', reason: 'FieldValueInvalid', fieldPath: '.limit' }] },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

export const apiextensionsFixtures: Fixtures = {
  'apiextensions.k8s.io/v1/CustomResourceDefinition': {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...fixtureMeta('crontabs.stable.example.com'), generation: 2, finalizers: ['customresourcecleanup.apiextensions.k8s.io'] },
    spec: {
      group: 'stable.example.com',
      names: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', format: 'int32', description: 'desired', priority: 1, jsonPath: '.spec.replicas' },
          ],
          selectableFields: [{ jsonPath: '.spec.mode' }],
        },
        { name: 'v1beta1', served: false, storage: false, deprecated: true, deprecationWarning: 'use v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { service: { namespace: 'system', name: 'conv', path: '/convert', port: 8443 }, caBundle: 'LS0tLS1CRUdJTg==' },
          conversionReviewVersions: ['v1', 'v1beta1'],
        },
      },
    },
    status: {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: '2024-05-01T10:00:01Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames: { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] },
      storedVersions: ['v1'],
    },
  },
  'apiextensions.k8s.io/v1beta1/CustomResourceDefinition': {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: fixtureMeta('widgets.example.com'),
    spec: {
      group: 'example.com',
      version: 'v1',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Cluster',
      validation: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', additionalProperties: true, items: [{ type: 'string' }, { type: 'integer' }] } } } },
      subresources: { status: {} },
      versions: [{ name: 'v1', served: true, storage: true }],
      additionalPrinterColumns: [{ name: 'Age', type: 'date', JSONPath: '.metadata.creationTimestamp' }],
      conversion: { strategy: 'None' },
      preserveUnknownFields: false,
    },
    status: {
      conditions: [],
      acceptedNames: { plural: 'widgets', kind: 'Widget' },
      storedVersions: ['v1'],
    },
  },
};
