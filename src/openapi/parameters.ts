/**
 * The query parameters of kube's resource operations, by name, and which operations take which.
 * Descriptions are ours; names, types and the per-verb lists follow kube 1.32's OpenAPI. kubectl
 * reads these lists: `fieldValidation` on a PATCH makes it send fieldValidation=Strict, `dryRun`
 * on a PATCH lets `diff` and `--dry-run=server` run.
 */
import type { Action } from './operations';

export interface QueryParameter {
  name: string;
  type: 'string' | 'integer' | 'boolean';
  description: string;
}

const q = (name: string, type: QueryParameter['type'], description: string): QueryParameter => ({ name, type, description });

export const queryParameters: Record<string, QueryParameter> = {
  pretty: q('pretty', 'string', "If 'true', the output is pretty printed."),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events in a watch; the server may send them or not.'),
  continue: q('continue', 'string', 'The continue token of the previous page of a paged list.'),
  dryRun: q('dryRun', 'string', "When present, nothing is persisted. The only valid value is 'All'."),
  fieldManager: q('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields. Printable, at most 128 characters.'),
  fieldSelector: q('fieldSelector', 'string', 'Restrict the objects returned by their fields. Defaults to everything.'),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'How the server treats unknown and duplicate fields in the body: Ignore drops them silently, Warn (the default) drops them and sends a Warning header for each, Strict fails the request with a BadRequest naming them all.',
  ),
  force: q('force', 'boolean', 'Server-side apply only: take ownership of fields other managers own instead of failing with a conflict.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes at once. Defaults to the kind\'s own period.'),
  labelSelector: q('labelSelector', 'string', 'Restrict the objects returned by their labels. Defaults to everything.'),
  limit: q('limit', 'integer', 'The most objects one list page holds; the rest is reached through metadata.continue.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
  propagationPolicy: q('propagationPolicy', 'string', "Whether and how dependents are garbage collected: 'Orphan', 'Background' or 'Foreground'."),
  resourceVersion: q('resourceVersion', 'string', 'Which version of the data a list or watch starts from; see resourceVersionMatch.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: Exact or NotOlderThan.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch=true, start with synthetic ADDED events for the current state, then a bookmark.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Ends a list or watch call after this many seconds.'),
  watch: q('watch', 'boolean', 'Watch for changes to the described resources and stream them as add, update and remove events.'),
};

const listing = [
  'allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch',
  'sendInitialEvents', 'timeoutSeconds', 'watch',
];

/** the query parameters of each action, sorted by name as kube lists them */
export const parametersOf: Record<Action, string[]> = {
  get: ['pretty'],
  list: ['pretty', ...listing],
  watch: ['pretty', ...listing],
  watchlist: ['pretty', ...listing],
  post: ['pretty', 'dryRun', 'fieldManager', 'fieldValidation'],
  put: ['pretty', 'dryRun', 'fieldManager', 'fieldValidation'],
  patch: ['pretty', 'dryRun', 'fieldManager', 'fieldValidation', 'force'],
  delete: ['pretty', 'dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
  deletecollection: [
    'pretty', 'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'labelSelector', 'limit', 'orphanDependents',
    'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds',
  ],
  // discovery documents
  discovery: [],
};
