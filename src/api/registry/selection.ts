/**
 * The label + field selection of list, watch and deletecollection (kube's SelectionPredicate).
 * Field selectors may use metadata.name, metadata.namespace (namespaced kinds; kube accepts it on
 * cluster-scoped kinds too, where it is always '') and the kind's selectableFields.
 */
import type { KindDefinition, KubeObject } from '../kind';
import { parseLabelSelector } from '../selectors/label-selector';
import { checkFieldSelectorFields, parseFieldSelector } from '../selectors/field-selector';
import { isShared } from '../../cache/encoded';

export interface Selection {
  /** neither selector restricts anything */
  readonly everything: boolean;
  matches(obj: KubeObject): boolean;
  /** the single name a field selector pins (metadata.name=x), if any */
  readonly name?: string;
  /** the value the field selector requires of `field` (`field=value`), if it requires one */
  pinned(field: string): string | undefined;
}

/**
 * the fields of shared (read-only, cached) objects, computed once: a watch event's object is
 * matched against every watcher's selector (1,000 node agents watching pods by spec.nodeName)
 */
const fieldsOfShared = new WeakMap<KubeObject, Readonly<Record<string, string>>>();

/** the field set an object exposes to field selectors */
export function objectFields(kind: KindDefinition, obj: KubeObject): Readonly<Record<string, string>> {
  if (!isShared(obj)) return computeFields(kind, obj);
  let fields = fieldsOfShared.get(obj);
  if (!fields) {
    fields = Object.freeze(computeFields(kind, obj));
    fieldsOfShared.set(obj, fields);
  }
  return fields;
}

function computeFields(kind: KindDefinition, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata?.name ?? '',
    'metadata.namespace': obj.metadata?.namespace ?? '',
  };
  if (kind.selectableFields) Object.assign(fields, kind.selectableFields(obj));
  return fields;
}

/** the field names a kind accepts in field selectors (probed on an empty object) */
function allowedFields(kind: KindDefinition): Set<string> {
  const allowed = new Set(['metadata.name', 'metadata.namespace']);
  if (kind.selectableFields) {
    try {
      for (const f of Object.keys(kind.selectableFields({ metadata: {} }))) allowed.add(f);
    } catch {
      // a selectableFields that needs a full object cannot be probed; its fields are then unknown
    }
  }
  return allowed;
}

/** parse both selectors (400 BadRequest on bad syntax or an unknown field) */
export function buildSelection(kind: KindDefinition, labelSelector?: string, fieldSelector?: string): Selection {
  const labels = parseLabelSelector(labelSelector ?? '');
  const fields = parseFieldSelector(fieldSelector ?? '');
  checkFieldSelectorFields(fields, allowedFields(kind));
  const everything = labels.isEmpty() && fields.requirements.length === 0;
  const pinned = fields.requirements.find((r) => r.field === 'metadata.name' && r.operator === '=');
  return {
    everything,
    name: pinned?.value,
    pinned: (field) => fields.exactValue(field),
    matches(obj: KubeObject): boolean {
      if (everything) return true;
      if (!labels.matches(obj.metadata?.labels ?? {})) return false;
      return fields.requirements.length === 0 || fields.matches(objectFields(kind, obj));
    },
  };
}
