/**
 * Where strategic merge patch reads list semantics: the schema's x-kubernetes-patch-strategy and
 * x-kubernetes-patch-merge-key on the field (read before following its $ref, as kube's OpenAPI
 * lookup does). A path the schema does not describe gets no metadata, so below it lists are
 * replaced and maps merged, like a JSON merge patch.
 */
import type { Definitions, SchemaNode } from '../../schema/types';
import { PatchError } from './patch-errors';

export interface PatchMeta {
  /** the strategy other than retainKeys: 'merge', 'replace' or '' */
  strategy: string;
  /** the field identifying list items ('' for none) */
  mergeKey: string;
}

const noMeta: PatchMeta = Object.freeze({ strategy: '', mergeKey: '' });

export class PatchSchema {
  readonly #definitions: Definitions;
  readonly #node: SchemaNode | undefined;

  constructor(definitions: Definitions, node: SchemaNode | undefined) {
    this.#definitions = definitions;
    this.#node = node;
  }

  /** the schema of a top-level definition (`io.k8s.api.apps.v1.Deployment`); unknown names describe nothing */
  static forDefinition(definitions: Definitions, root: string): PatchSchema {
    return new PatchSchema(definitions, definitions[root]);
  }

  /** a name for messages, like kube's schema Name() */
  get name(): string {
    const node = this.#resolve(this.#node);
    if (!node) return 'struct';
    if (node.properties) return 'struct';
    return node.type ?? 'struct';
  }

  /** the field `key` of this object (or the value schema when this is a map) and its patch metadata */
  forField(key: string): { schema: PatchSchema; meta: PatchMeta } {
    const field = this.#field(key);
    if (!field) return { schema: new PatchSchema(this.#definitions, undefined), meta: noMeta };
    return { schema: new PatchSchema(this.#definitions, field), meta: readMeta(field) };
  }

  /** the list field `key`: the schema of its items and the list's patch metadata */
  forList(key: string): { schema: PatchSchema; meta: PatchMeta } {
    const field = this.#field(key);
    if (!field) return { schema: new PatchSchema(this.#definitions, undefined), meta: noMeta };
    const list = this.#resolve(field);
    return { schema: new PatchSchema(this.#definitions, list?.items ?? list), meta: readMeta(field) };
  }

  #field(key: string): SchemaNode | undefined {
    const node = this.#resolve(this.#node);
    if (!node) return undefined;
    const property = node.properties?.[key];
    if (property) return property;
    if (typeof node.additionalProperties === 'object') return node.additionalProperties;
    return undefined;
  }

  /** follow $ref (#/definitions/<name>) to the described node; a cycle of refs describes nothing */
  #resolve(node: SchemaNode | undefined): SchemaNode | undefined {
    for (let hops = 0; node && node.$ref; hops++) {
      if (hops > 32) return undefined;
      node = this.#definitions[node.$ref.replace(/^#\/definitions\//, '')];
    }
    return node;
  }
}

/** kube's extractRetainKeysPatchStrategy over the comma-separated strategy */
function readMeta(field: SchemaNode): PatchMeta {
  const mergeKey = field['x-kubernetes-patch-merge-key'] ?? '';
  const raw = field['x-kubernetes-patch-strategy'];
  const strategies = raw === undefined ? [] : raw.split(',');
  let strategy: string;
  if (strategies.length === 0) strategy = '';
  else if (strategies.length === 1) strategy = strategies[0] === 'retainKeys' ? '' : strategies[0];
  else if (strategies.length === 2 && strategies[0] === 'retainKeys') strategy = strategies[1];
  else if (strategies.length === 2 && strategies[1] === 'retainKeys') strategy = strategies[0];
  else throw new PatchError(`unexpected patch strategy: [${strategies.join(' ')}]`);
  return { strategy, mergeKey };
}
