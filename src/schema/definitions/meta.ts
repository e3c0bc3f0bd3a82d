/**
 * meta.k8s.io/v1 types shared by every kind (io.k8s.apimachinery.pkg.apis.meta.v1.*), plus the
 * apimachinery scalars Quantity, IntOrString and RawExtension.
 */
import type { Definitions, SchemaNode } from '../types';
import {
  INT_OR_STRING, QUANTITY, RAW_EXTENSION, atomic, bool, int32, int64, list, map, mergeList, meta, obj,
  ref, set, str, time,
} from '../dsl';

/** DeleteOptions and WatchEvent are accepted in every group version that serves deletable kinds */
const SHARED_GROUP_VERSIONS: Array<[string, string]> = [
  ['', 'v1'], ['apps', 'v1'], ['authorization.k8s.io', 'v1'], ['autoscaling', 'v1'], ['batch', 'v1'],
  ['batch', 'v1beta1'], ['coordination.k8s.io', 'v1'], ['events.k8s.io', 'v1'],
];
const everyGroup = (kind: string): SchemaNode['x-kubernetes-group-version-kind'] =>
  SHARED_GROUP_VERSIONS.map(([group, version]) => ({ group, version, kind }));

export const metaDefinitions: Definitions = {
  [QUANTITY]: {
    description: 'An amount with an optional unit suffix (100m, 1Gi, 2): a string, or a plain number.',
    type: 'string',
  },
  [INT_OR_STRING]: {
    description: 'Either an integer or a string (a port number or a port name, a count or a percentage).',
    type: 'string',
    format: 'int-or-string',
    'x-kubernetes-int-or-string': true,
  },
  [RAW_EXTENSION]: {
    description: 'An embedded JSON value, kept as sent.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [meta('Time')]: {
    description: 'A timestamp in RFC 3339 form, to the second.',
    type: 'string',
    format: 'date-time',
  },
  [meta('MicroTime')]: {
    description: 'A timestamp in RFC 3339 form, to the microsecond.',
    type: 'string',
    format: 'date-time',
  },
  [meta('FieldsV1')]: {
    description: 'A set of field paths, encoded as nested JSON objects.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  },

  [meta('ObjectMeta')]: obj('Metadata that every persisted object carries.', {
    annotations: map('Free-form key/value pairs that tools attach to the object; not used for selection.'),
    creationTimestamp: time('When the server created the object. Set by the server; read-only.'),
    deletionGracePeriodSeconds: int64('Seconds the object is given to terminate once deletion started. Read-only.'),
    deletionTimestamp: time('When the object will be (or was asked to be) deleted. Set by the server; read-only.'),
    finalizers: set(str(), 'Keys that must all be removed before the object is deleted from storage.', { merge: true }),
    generateName: str('A prefix the server completes with a random suffix when name is empty on create.'),
    generation: int64('A counter of changes to the desired state. Set by the server; read-only.'),
    labels: map('Key/value pairs used to organise and select objects.'),
    managedFields: atomic(ref(meta('ManagedFieldsEntry')), 'Which manager owns which fields (server-side apply bookkeeping).'),
    name: str('Name of the object, unique in its namespace (or cluster-wide for cluster-scoped kinds).'),
    namespace: str('The namespace the object lives in; empty for cluster-scoped kinds.'),
    ownerReferences: mergeList(ref(meta('OwnerReference')), 'uid', 'Objects this one depends on; it is garbage collected when they are gone.'),
    resourceVersion: str('Opaque version of the object, used for optimistic concurrency and watches. Read-only.'),
    selfLink: str('Deprecated; no longer set by the server.'),
    uid: str('Unique id of this incarnation of the object, set by the server. Read-only.'),
  }),
  [meta('ListMeta')]: obj('Metadata of a list response.', {
    continue: str('Token to pass as `continue` to fetch the next page; empty on the last page.'),
    remainingItemCount: int64('How many items remain after this page, when the server can tell.'),
    resourceVersion: str('Version of the collection at the time of the list; start a watch from here.'),
    selfLink: str('Deprecated; no longer set by the server.'),
  }),
  [meta('OwnerReference')]: obj(
    'A pointer to an owning object in the same namespace.',
    {
      apiVersion: str('API version of the owner.'),
      blockOwnerDeletion: bool('When true, foreground deletion of the owner waits for this object to be removed.'),
      controller: bool('When true, the owner is the managing controller; at most one owner may say so.'),
      kind: str('Kind of the owner.'),
      name: str('Name of the owner.'),
      uid: str('UID of the owner.'),
    },
    { required: ['apiVersion', 'kind', 'name', 'uid'], atomic: true },
  ),
  [meta('LabelSelector')]: obj(
    'Selects objects by labels. All terms must hold; an empty selector matches everything.',
    {
      matchExpressions: atomic(ref(meta('LabelSelectorRequirement')), 'Set-based terms, all of which must hold.'),
      matchLabels: map('Labels that must be present with exactly these values.'),
    },
    { atomic: true },
  ),
  [meta('LabelSelectorRequirement')]: obj(
    'One set-based label term: key, operator and values.',
    {
      key: str('The label key.'),
      operator: str('In, NotIn, Exists or DoesNotExist.'),
      values: atomic(str(), 'Values for In and NotIn; must be empty for Exists and DoesNotExist.'),
    },
    { required: ['key', 'operator'] },
  ),
  [meta('FieldSelectorRequirement')]: obj(
    'One field selector term: field key, operator and values.',
    {
      key: str('The field path.'),
      operator: str('In, NotIn, Exists or DoesNotExist.'),
      values: atomic(str(), 'Values for In and NotIn.'),
    },
    { required: ['key', 'operator'] },
  ),
  [meta('ManagedFieldsEntry')]: obj('The set of fields one manager owns through one operation.', {
    apiVersion: str('Version of the object the field set was written against.'),
    fieldsType: str('Encoding of fieldsV1; only FieldsV1 exists.'),
    fieldsV1: ref(meta('FieldsV1'), 'The owned fields.'),
    manager: str('Name of the managing workflow.'),
    operation: str('Apply or Update.'),
    subresource: str('The subresource the write went through, empty for the main resource.'),
    time: time('When this entry last changed.'),
  }),
  [meta('Condition')]: obj(
    'A generic status condition.',
    {
      lastTransitionTime: time('When the condition last changed status.'),
      message: str('Human-readable details of the transition.'),
      observedGeneration: int64('The metadata.generation the condition was computed from.'),
      reason: str('Machine-readable, CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('Type of the condition, in CamelCase or as a domain-prefixed name.'),
    },
    { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  ),
  [meta('Status')]: obj(
    'The result of an operation that does not return an object, and the body of every error.',
    {
      apiVersion: str('Versioned schema of this object.'),
      code: int32('HTTP status code of the outcome.'),
      details: ref(meta('StatusDetails'), 'Extra data about the failure, depending on reason.'),
      kind: str('Status.'),
      message: str('Human-readable description of the outcome.'),
      metadata: ref(meta('ListMeta'), 'List metadata (unused on most Status objects).'),
      reason: str('Machine-readable, CamelCase reason for a Failure (NotFound, AlreadyExists, Conflict...).'),
      status: str('Success or Failure.'),
    },
    { gvk: { group: '', version: 'v1', kind: 'Status' } },
  ),
  [meta('StatusDetails')]: obj('Details of a failed operation.', {
    causes: atomic(ref(meta('StatusCause')), 'The individual problems, e.g. one per invalid field.'),
    group: str('API group of the object concerned.'),
    kind: str('Kind of the object concerned.'),
    name: str('Name of the object concerned.'),
    retryAfterSeconds: int32('Seconds to wait before retrying, when the operation may be retried.'),
    uid: str('UID of the object concerned.'),
  }),
  [meta('StatusCause')]: obj('One reason an operation failed.', {
    field: str('Path of the field at fault, e.g. spec.containers[0].name.'),
    message: str('Human-readable description of the problem.'),
    reason: str('Machine-readable cause, e.g. FieldValueRequired.'),
  }),
  [meta('Preconditions')]: obj('Conditions the object must still meet for the operation to go ahead.', {
    resourceVersion: str('The object must have this resourceVersion.'),
    uid: str('The object must have this UID.'),
  }),
  [meta('DeleteOptions')]: {
    ...obj('Options of a delete request.', {
      apiVersion: str('Versioned schema of this object.'),
      dryRun: atomic(str(), 'When set to All, nothing is persisted.'),
      gracePeriodSeconds: int64('Seconds before the object is deleted; 0 means immediately.'),
      ignoreStoreReadErrorWithClusterBreakingPotential: bool('Deletes an object whose stored form cannot be read. Dangerous.'),
      kind: str('Kind of this object.'),
      orphanDependents: bool('Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
      preconditions: ref(meta('Preconditions'), 'Must hold for the deletion to proceed.'),
      propagationPolicy: str('How dependents are garbage collected: Orphan, Background or Foreground.'),
    }),
    'x-kubernetes-group-version-kind': everyGroup('DeleteOptions'),
  },
  [meta('WatchEvent')]: {
    ...obj(
      'One event of a watch stream.',
      {
        object: ref(RAW_EXTENSION, 'The object as of the event (a Status for ERROR events).'),
        type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
      },
      { required: ['type', 'object'] },
    ),
    'x-kubernetes-group-version-kind': everyGroup('WatchEvent'),
  },

  [meta('APIResource')]: obj(
    'Discovery data about one resource.',
    {
      categories: atomic(str(), 'Groups of resources this one belongs to, like all.'),
      group: str('Preferred group of the resource, when it differs from the list.'),
      kind: str('Kind of the resource.'),
      name: str('Plural name of the resource (or resource/subresource).'),
      namespaced: bool('Whether the resource is namespaced.'),
      shortNames: atomic(str(), 'Short aliases for the resource.'),
      singularName: str('Singular name of the resource.'),
      storageVersionHash: str('A hash of the storage version, for detecting storage migrations.'),
      verbs: list(str(), 'Verbs the resource supports.'),
      version: str('Preferred version of the resource, when it differs from the list.'),
    },
    { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
  ),
  [meta('APIResourceList')]: obj(
    'The resources of one group version.',
    {
      apiVersion: str('Versioned schema of this object.'),
      groupVersion: str('The group version described.'),
      kind: str('APIResourceList.'),
      resources: atomic(ref(meta('APIResource')), 'The resources.'),
    },
    { required: ['groupVersion', 'resources'], gvk: { group: '', version: 'v1', kind: 'APIResourceList' } },
  ),
  [meta('GroupVersionForDiscovery')]: obj(
    'One version of an API group.',
    {
      groupVersion: str('group/version.'),
      version: str('The version alone.'),
    },
    { required: ['groupVersion', 'version'] },
  ),
  [meta('ServerAddressByClientCIDR')]: obj(
    'Which server address a client network should use.',
    {
      clientCIDR: str('The client network, in CIDR form.'),
      serverAddress: str('host or host:port for clients of that network.'),
    },
    { required: ['clientCIDR', 'serverAddress'] },
  ),
  [meta('APIGroup')]: obj(
    'Discovery data about one API group.',
    {
      apiVersion: str('Versioned schema of this object.'),
      kind: str('APIGroup.'),
      name: str('Name of the group.'),
      preferredVersion: ref(meta('GroupVersionForDiscovery'), 'The version clients should use.'),
      serverAddressByClientCIDRs: atomic(ref(meta('ServerAddressByClientCIDR')), 'Server addresses per client network.'),
      versions: atomic(ref(meta('GroupVersionForDiscovery')), 'Versions served.'),
    },
    { required: ['name', 'versions'], gvk: { group: '', version: 'v1', kind: 'APIGroup' } },
  ),
  [meta('APIGroupList')]: obj(
    'The API groups the server serves.',
    {
      apiVersion: str('Versioned schema of this object.'),
      groups: atomic(ref(meta('APIGroup')), 'The groups.'),
      kind: str('APIGroupList.'),
    },
    { required: ['groups'], gvk: { group: '', version: 'v1', kind: 'APIGroupList' } },
  ),
  [meta('APIVersions')]: obj(
    'The versions of the legacy core API.',
    {
      apiVersion: str('Versioned schema of this object.'),
      kind: str('APIVersions.'),
      serverAddressByClientCIDRs: atomic(ref(meta('ServerAddressByClientCIDR')), 'Server addresses per client network.'),
      versions: atomic(str(), 'The versions, e.g. v1.'),
    },
    { required: ['versions', 'serverAddressByClientCIDRs'], gvk: { group: '', version: 'v1', kind: 'APIVersions' } },
  ),
};
