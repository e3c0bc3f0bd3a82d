/**
 * The list and map semantics server-side apply reads from the schema, as kube's OpenAPI-to-SMD
 * conversion (kube-openapi schemaconv) derives them:
 * - x-kubernetes-list-type: atomic | set | map (with x-kubernetes-list-map-keys);
 * - without a list-type, a list with patch strategy `merge` is associative: keyed by its
 *   patch-merge-key when it has one (a map list), else a set; every other list is atomic;
 * - x-kubernetes-map-type: atomic makes a map or struct one leaf; otherwise maps are granular.
 * A value the schema does not describe (preserve-unknown-fields, unknown fields) is "deduced":
 * maps granular, lists atomic.
 */
import type { Definitions, SchemaNode } from '../../schema/types';

export type ListRelationship = 'atomic' | 'set' | 'map';

export class SchemaType {
  readonly #defs: Definitions | undefined;
  /** the node as written on the field (before following $ref) */
  readonly #field: SchemaNode | undefined;
  readonly #node: SchemaNode | undefined;

  constructor(defs: Definitions | undefined, field: SchemaNode | undefined) {
    this.#defs = defs;
    this.#field = field;
    this.#node = resolve(defs, field);
  }

  /** the type of a top-level definition (`io.k8s.api.apps.v1.Deployment`) */
  static forDefinition(defs: Definitions | undefined, name: string): SchemaType {
    return new SchemaType(defs, defs?.[name]);
  }

  /** no schema: values are deduced */
  static untyped(): SchemaType {
    return new SchemaType(undefined, undefined);
  }

  get described(): boolean {
    return this.#node !== undefined && !this.#node['x-kubernetes-preserve-unknown-fields'];
  }

  /** a map or struct replaced as a whole */
  get atomicMap(): boolean {
    // a field's own marker wins over its type's (PersistentVolumeSpec.claimRef is granular, ObjectReference atomic)
    const own = this.#field?.['x-kubernetes-map-type'];
    if (own) return own === 'atomic';
    return this.#node?.['x-kubernetes-map-type'] === 'atomic';
  }

  /** the struct has a schema with named properties (not a string-keyed map) */
  get isStruct(): boolean {
    return !!this.#node?.properties;
  }

  /** names of required properties of this struct */
  get required(): readonly string[] {
    return this.#node?.required ?? [];
  }

  /** the type of field `key` of this map or struct */
  field(key: string): SchemaType {
    const node = this.#node;
    if (!node || !this.described) return SchemaType.untyped();
    const prop = node.properties?.[key];
    if (prop) return new SchemaType(this.#defs, prop);
    if (typeof node.additionalProperties === 'object') return new SchemaType(this.#defs, node.additionalProperties);
    return SchemaType.untyped();
  }

  /** how items of this list are identified */
  get listRelationship(): ListRelationship {
    if (!this.described) return 'atomic';
    const declared = this.#field?.['x-kubernetes-list-type'] ?? this.#node?.['x-kubernetes-list-type'];
    if (declared) return declared;
    const strategy = this.#field?.['x-kubernetes-patch-strategy'] ?? this.#node?.['x-kubernetes-patch-strategy'] ?? '';
    if (strategy.split(',').includes('merge')) return this.#mergeKey ? 'map' : 'set';
    return 'atomic';
  }

  get #mergeKey(): string | undefined {
    return this.#field?.['x-kubernetes-patch-merge-key'] ?? this.#node?.['x-kubernetes-patch-merge-key'];
  }

  /** the key fields of a map list */
  get listKeys(): readonly string[] {
    const declared = this.#field?.['x-kubernetes-list-map-keys'] ?? this.#node?.['x-kubernetes-list-map-keys'];
    if (declared?.length) return declared;
    const mk = this.#mergeKey;
    return mk ? [mk] : [];
  }

  /** the type of this list's items */
  item(): SchemaType {
    const node = this.#node;
    if (!node?.items) return SchemaType.untyped();
    return new SchemaType(this.#defs, node.items);
  }
}

function resolve(defs: Definitions | undefined, node: SchemaNode | undefined): SchemaNode | undefined {
  for (let hops = 0; node?.$ref; hops++) {
    if (!defs || hops > 32) return undefined;
    node = defs[node.$ref.replace(/^#\/definitions\//, '')];
  }
  return node;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
