/**
 * apiextensions.k8s.io v1 and v1beta1: CustomResourceDefinition and the JSON schema language it
 * carries (JSONSchemaProps). Both versions share the shape of JSONSchemaProps; v1 adds
 * x-kubernetes-validations (stored and served, not evaluated: see src/api/crd). The four wrapper
 * types kube writes as "any JSON" (JSON, JSONSchemaPropsOrArray, OrBool, OrStringArray) have no
 * type here, as in kube's own document: a schema there may be an object, a list or a boolean.
 */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, bool, bytes, condition, int32, int64, list, listMap, map, obj, ref, str } from '../dsl';

const V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const V1BETA1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.';

const number = (desc: string): SchemaNode => ({ description: desc, type: 'number', format: 'double' });
const anyJson = (desc: string): SchemaNode => ({ description: desc });

/** JSONSchemaProps and its helper types under `prefix`; `validations` adds v1's x-kubernetes-validations */
function schemaLanguage(prefix: string, validations: boolean): Definitions {
  const props = (desc: string) => ref(`${prefix}JSONSchemaProps`, desc);
  const defs: Definitions = {
    [`${prefix}JSON`]: anyJson('Any JSON value: an object, a list, a string, a number, a boolean or null.'),
    [`${prefix}JSONSchemaPropsOrArray`]: anyJson('A schema, or a list of schemas.'),
    [`${prefix}JSONSchemaPropsOrBool`]: anyJson('A schema, or a boolean (true allows anything, false nothing).'),
    [`${prefix}JSONSchemaPropsOrStringArray`]: anyJson('A schema, or a list of property names.'),
    [`${prefix}ExternalDocumentation`]: obj('A link to documentation outside the schema.', {
      description: str('What the link is about.'),
      url: str('Where the documentation is.'),
    }),
  };
  const jsonSchemaProps: Record<string, SchemaNode> = {
    $ref: str('A reference to another schema (not supported by the API server).'),
    $schema: str('The JSON schema dialect (not supported by the API server).'),
    additionalItems: ref(`${prefix}JSONSchemaPropsOrBool`, 'Schema of list items past those items describes (not supported).'),
    additionalProperties: ref(`${prefix}JSONSchemaPropsOrBool`, 'Schema of the values of a map, or whether other keys are allowed.'),
    allOf: list(props(''), 'Schemas the value must all satisfy.'),
    anyOf: list(props(''), 'Schemas of which the value must satisfy at least one.'),
    default: ref(`${prefix}JSON`, 'Value set when the field is missing (apiextensions.k8s.io/v1 only).'),
    definitions: map('Named schemas (not supported).', props('')),
    dependencies: map('Property dependencies (not supported).', ref(`${prefix}JSONSchemaPropsOrStringArray`)),
    description: str('What the value means.'),
    enum: list(ref(`${prefix}JSON`), 'The values allowed.'),
    example: ref(`${prefix}JSON`, 'An example value.'),
    exclusiveMaximum: bool('The maximum itself is not allowed.'),
    exclusiveMinimum: bool('The minimum itself is not allowed.'),
    externalDocs: ref(`${prefix}ExternalDocumentation`, 'Documentation elsewhere.'),
    format: str('A format the string value must have, such as date-time or int32.'),
    id: str('Schema id (not supported).'),
    items: ref(`${prefix}JSONSchemaPropsOrArray`, 'Schema of list items.'),
    maxItems: int64('Most items a list may have.'),
    maxLength: int64('Longest a string may be.'),
    maxProperties: int64('Most keys an object may have.'),
    maximum: number('Largest number allowed.'),
    minItems: int64('Fewest items a list may have.'),
    minLength: int64('Shortest a string may be.'),
    minProperties: int64('Fewest keys an object may have.'),
    minimum: number('Smallest number allowed.'),
    multipleOf: number('The number must be a multiple of this.'),
    not: props('A schema the value must not satisfy.'),
    nullable: bool('Null is an allowed value.'),
    oneOf: list(props(''), 'Schemas of which the value must satisfy exactly one.'),
    pattern: str('A regular expression strings must match.'),
    patternProperties: map('Schemas of keys matching patterns (not supported).', props('')),
    properties: map('Schemas of the fields of an object, by field name.', props('')),
    required: list(str(), 'Fields an object must have.'),
    title: str('A short title.'),
    type: str('object, array, string, integer, number or boolean.'),
    uniqueItems: bool('List items must differ (not supported).'),
    'x-kubernetes-embedded-resource': bool('The object is a whole Kubernetes object: apiVersion, kind and metadata are checked.'),
    'x-kubernetes-int-or-string': bool('The value is an integer or a string.'),
    'x-kubernetes-list-map-keys': atomic(str(), 'Fields that identify the items of a map list.'),
    'x-kubernetes-list-type': str('How apply merges the list: atomic, set or map.'),
    'x-kubernetes-map-type': str('How apply merges the object: granular or atomic.'),
    'x-kubernetes-preserve-unknown-fields': bool('Fields the schema does not name are kept instead of pruned.'),
  };
  if (validations) {
    jsonSchemaProps['x-kubernetes-validations'] = {
      ...listMap(ref(`${prefix}ValidationRule`), ['rule'], 'CEL validation rules (stored, not evaluated by Ballast).'),
      'x-kubernetes-patch-merge-key': 'rule',
      'x-kubernetes-patch-strategy': 'merge',
    };
    defs[`${prefix}ValidationRule`] = obj(
      'A CEL validation rule.',
      {
        fieldPath: str('Where a failure is reported.'),
        message: str('Message of a failure.'),
        messageExpression: str('CEL expression giving the message of a failure.'),
        optionalOldSelf: bool('Run the rule on creates too, with oldSelf unset.'),
        reason: str('Reason of a failure: FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.'),
        rule: str('The CEL expression.'),
      },
      { required: ['rule'] },
    );
  }
  defs[`${prefix}JSONSchemaProps`] = obj('A JSON schema (OpenAPI v3 subset) describing a value.', jsonSchemaProps);
  return defs;
}

/** what v1 and v1beta1 share: names, subresources, conditions, service references */
function common(prefix: string, listTypes: boolean): Definitions {
  const strings = (desc: string) => (listTypes ? atomic(str(), desc) : list(str(), desc));
  return {
    [`${prefix}CustomResourceDefinitionNames`]: obj(
      'The names of a custom resource.',
      {
        categories: strings('Groups of resources it belongs to, such as all (kubectl get all).'),
        kind: str('The CamelCase kind of its objects.'),
        listKind: str('The kind of its lists; default <kind>List.'),
        plural: str('The resource name in URLs, lower case.'),
        shortNames: strings('Short names kubectl accepts.'),
        singular: str('The singular name, lower case; default the lower-cased kind.'),
      },
      { required: ['plural', 'kind'] },
    ),
    [`${prefix}CustomResourceValidation`]: obj('The schema of custom objects.', {
      openAPIV3Schema: ref(`${prefix}JSONSchemaProps`, 'The OpenAPI v3 schema.'),
    }),
    // an empty struct: kube's document gives it no properties at all
    [`${prefix}CustomResourceSubresourceStatus`]: { description: 'Enables the status subresource (an empty object).', type: 'object' },
    [`${prefix}CustomResourceSubresourceScale`]: obj(
      'Enables the scale subresource.',
      {
        labelSelectorPath: str('JSON path of the serialized label selector, under .status or .spec.'),
        specReplicasPath: str('JSON path of the desired replicas, under .spec.'),
        statusReplicasPath: str('JSON path of the observed replicas, under .status.'),
      },
      { required: ['specReplicasPath', 'statusReplicasPath'] },
    ),
    [`${prefix}CustomResourceSubresources`]: obj('The subresources custom objects have.', {
      scale: ref(`${prefix}CustomResourceSubresourceScale`, 'The scale subresource.'),
      status: ref(`${prefix}CustomResourceSubresourceStatus`, 'The status subresource.'),
    }),
    [`${prefix}ServiceReference`]: obj(
      'A service in the cluster that answers webhook calls.',
      {
        name: str('Name of the service.'),
        namespace: str('Namespace of the service.'),
        path: str('URL path the calls are sent to.'),
        port: int32('Port of the service; default 443.'),
      },
      { required: ['namespace', 'name'] },
    ),
    [`${prefix}WebhookClientConfig`]: obj('How to reach a webhook over TLS.', {
      caBundle: bytes('PEM CA bundle that signs the webhook server certificate; default the system roots.'),
      service: ref(`${prefix}ServiceReference`, 'A service to call.'),
      url: str('A URL to call (https://host[:port]/path).'),
    }),
    [`${prefix}CustomResourceDefinitionCondition`]: condition('An observation of the definition.', 'Established, NamesAccepted, NonStructuralSchema, Terminating or KubernetesAPIApprovalPolicyConformant.', ['lastTransitionTime']),
    [`${prefix}CustomResourceDefinitionStatus`]: obj('What the server made of the definition.', {
      acceptedNames: ref(`${prefix}CustomResourceDefinitionNames`, 'The names being served.'),
      conditions: listTypes
        ? listMap(ref(`${prefix}CustomResourceDefinitionCondition`), ['type'], 'Observations of the definition.')
        : list(ref(`${prefix}CustomResourceDefinitionCondition`), 'Observations of the definition.'),
      storedVersions: strings('Every version objects were ever stored in.'),
    }),
  };
}

function column(prefix: string, jsonPathKey: 'jsonPath' | 'JSONPath'): SchemaNode {
  return obj(
    'An extra column kubectl get prints.',
    {
      ...(jsonPathKey === 'JSONPath' ? { JSONPath: str('Simple JSON path of the value, e.g. .spec.replicas.') } : {}),
      description: str('What the column shows.'),
      format: str('Format of the value, e.g. int32, date, name.'),
      ...(jsonPathKey === 'jsonPath' ? { jsonPath: str('Simple JSON path of the value, e.g. .spec.replicas.') } : {}),
      name: str('Column header.'),
      priority: int32('0 shows the column always; higher ones only with -o wide.'),
      type: str('integer, number, string, boolean or date.'),
    },
    { required: ['name', 'type', jsonPathKey] },
  );
}

export const apiextensionsDefinitions: Definitions = {
  ...schemaLanguage(V1, true),
  ...common(V1, true),
  [`${V1}CustomResourceColumnDefinition`]: column(V1, 'jsonPath'),
  [`${V1}SelectableField`]: obj('A field custom objects can be selected by.', { jsonPath: str('Simple JSON path of a string, integer or boolean field.') }, { required: ['jsonPath'] }),
  [`${V1}CustomResourceDefinitionVersion`]: obj(
    'One version of a custom resource.',
    {
      additionalPrinterColumns: atomic(ref(`${V1}CustomResourceColumnDefinition`), 'Extra columns of kubectl get; default an Age column.'),
      deprecated: bool('The version is deprecated: requests get a warning.'),
      deprecationWarning: str('The warning sent instead of the default one.'),
      name: str('The version name, e.g. v1 or v2beta1.'),
      schema: ref(`${V1}CustomResourceValidation`, 'Schema of objects in this version.'),
      selectableFields: atomic(ref(`${V1}SelectableField`), 'Fields usable in field selectors.'),
      served: bool('The version is served by the REST API.'),
      storage: bool('Objects are stored in this version; exactly one version is.'),
      subresources: ref(`${V1}CustomResourceSubresources`, 'Subresources of this version.'),
    },
    { required: ['name', 'served', 'storage'] },
  ),
  [`${V1}WebhookConversion`]: obj(
    'How a conversion webhook is called.',
    {
      clientConfig: ref(`${V1}WebhookClientConfig`, 'Where the webhook is.'),
      conversionReviewVersions: atomic(str(), 'ConversionReview versions the webhook accepts, in preference order.'),
    },
    { required: ['conversionReviewVersions'] },
  ),
  [`${V1}CustomResourceConversion`]: obj(
    'How objects are converted between versions.',
    {
      strategy: str('None (only apiVersion changes) or Webhook.'),
      webhook: ref(`${V1}WebhookConversion`, 'The webhook, for the Webhook strategy.'),
    },
    { required: ['strategy'] },
  ),
  [`${V1}CustomResourceDefinitionSpec`]: obj(
    'The resource a definition adds.',
    {
      conversion: ref(`${V1}CustomResourceConversion`, 'How objects are converted between versions.'),
      group: str('The API group, a DNS subdomain with at least one dot.'),
      names: ref(`${V1}CustomResourceDefinitionNames`, 'The names of the resource.'),
      preserveUnknownFields: bool('Keep fields the schema does not name (deprecated; use x-kubernetes-preserve-unknown-fields).'),
      scope: str('Namespaced or Cluster.'),
      versions: atomic(ref(`${V1}CustomResourceDefinitionVersion`), 'The versions of the resource.'),
    },
    { required: ['group', 'names', 'scope', 'versions'] },
  ),
  ...schemaLanguage(V1BETA1, false),
  ...common(V1BETA1, false),
  [`${V1BETA1}CustomResourceColumnDefinition`]: column(V1BETA1, 'JSONPath'),
  [`${V1BETA1}CustomResourceDefinitionVersion`]: obj(
    'One version of a custom resource.',
    {
      additionalPrinterColumns: list(ref(`${V1BETA1}CustomResourceColumnDefinition`), 'Extra columns of kubectl get for this version.'),
      deprecated: bool('The version is deprecated: requests get a warning.'),
      deprecationWarning: str('The warning sent instead of the default one.'),
      name: str('The version name, e.g. v1 or v2beta1.'),
      schema: ref(`${V1BETA1}CustomResourceValidation`, 'Schema of objects in this version.'),
      served: bool('The version is served by the REST API.'),
      storage: bool('Objects are stored in this version; exactly one version is.'),
      subresources: ref(`${V1BETA1}CustomResourceSubresources`, 'Subresources of this version.'),
    },
    { required: ['name', 'served', 'storage'] },
  ),
  [`${V1BETA1}CustomResourceConversion`]: obj(
    'How objects are converted between versions.',
    {
      conversionReviewVersions: list(str(), 'ConversionReview versions the webhook accepts; default [v1beta1].'),
      strategy: str('None (only apiVersion changes) or Webhook.'),
      webhookClientConfig: ref(`${V1BETA1}WebhookClientConfig`, 'Where the webhook is, for the Webhook strategy.'),
    },
    { required: ['strategy'] },
  ),
  [`${V1BETA1}CustomResourceDefinitionSpec`]: obj(
    'The resource a definition adds.',
    {
      additionalPrinterColumns: list(ref(`${V1BETA1}CustomResourceColumnDefinition`), 'Extra columns of kubectl get for every version.'),
      conversion: ref(`${V1BETA1}CustomResourceConversion`, 'How objects are converted between versions.'),
      group: str('The API group, a DNS subdomain with at least one dot.'),
      names: ref(`${V1BETA1}CustomResourceDefinitionNames`, 'The names of the resource.'),
      preserveUnknownFields: bool('Keep fields the schema does not name; default true.'),
      scope: str('Namespaced or Cluster.'),
      subresources: ref(`${V1BETA1}CustomResourceSubresources`, 'Subresources of every version.'),
      validation: ref(`${V1BETA1}CustomResourceValidation`, 'Schema of every version.'),
      version: str('The first version (deprecated; use versions).'),
      versions: list(ref(`${V1BETA1}CustomResourceDefinitionVersion`), 'The versions of the resource.'),
    },
    { required: ['group', 'names', 'scope'] },
  ),
};

for (const [prefix, version] of [
  [V1, 'v1'],
  [V1BETA1, 'v1beta1'],
] as const) {
  addKind(
    apiextensionsDefinitions,
    prefix,
    { group: 'apiextensions.k8s.io', version, kind: 'CustomResourceDefinition' },
    'A definition of a custom resource: the server serves its objects under /apis/<group>/<version>/<plural>.',
    {
      spec: ref(`${prefix}CustomResourceDefinitionSpec`, 'The resource to add.'),
      status: ref(`${prefix}CustomResourceDefinitionStatus`, 'What the server made of it.'),
    },
    ['spec'],
  );
}

