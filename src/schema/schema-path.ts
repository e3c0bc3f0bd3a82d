/**
 * Walks a definition alongside a JSON value to describe a location the way kube does: the field
 * path (`spec.template.spec.containers[0].image`), the Go struct that holds the field and the Go
 * type expected there. Used to word validation issues like kube's JSON decoder.
 */
import type { Definitions, SchemaNode } from './types';
import { INT_OR_STRING, QUANTITY } from './dsl';

const REF_PREFIX = '#/definitions/';

export function refName(node: SchemaNode): string | undefined {
  return node.$ref?.startsWith(REF_PREFIX) ? node.$ref.slice(REF_PREFIX.length) : undefined;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` -> `DeploymentSpec` */
export const shortName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/** Go's spelling of the type a schema node decodes into: `int32`, `[]v1.Container`, `map[string]string` */
export function goType(defs: Definitions, node: SchemaNode | undefined): string {
  if (!node) return 'interface {}';
  const name = refName(node);
  if (name) {
    const parts = name.split('.');
    return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : name;
  }
  if (node['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  switch (node.type) {
    case 'string':
      return node.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return node.format === 'int32' || node.format === 'int64' ? node.format : 'int';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${goType(defs, node.items)}`;
    case 'object':
      if (node.additionalProperties && typeof node.additionalProperties === 'object') {
        return `map[string]${goType(defs, node.additionalProperties)}`;
      }
      return 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

export interface Location {
  /** kube field path: `spec.containers[0].ports[1].containerPort`, map keys as `[key]` */
  field: string;
  /** Go's dotted JSON path without indices: `spec.containers.ports.containerPort` */
  goPath: string;
  /** the struct holding the last named field: `ContainerPort` */
  struct: string;
  /** the schema expected at the location, or undefined when the path leaves the schema */
  node: SchemaNode | undefined;
}

/** follows $refs; returns the resolved node and the definition name it came from */
export function deref(defs: Definitions, node: SchemaNode): { node: SchemaNode; name?: string } {
  let name: string | undefined;
  let current = node;
  for (let guard = 0; guard < 16; guard++) {
    const target = refName(current);
    if (!target || !defs[target]) break;
    name = target;
    current = defs[target];
  }
  return { node: current, name };
}

/** isn't worth a struct name: scalar definitions like Time, Quantity */
const isStruct = (node: SchemaNode): boolean => node.type === 'object' && !!node.properties;

/** describes `segments` (a JSON pointer, already split and unescaped) inside `value` of definition `root` */
export function locate(defs: Definitions, root: string, value: unknown, segments: string[]): Location {
  let node: SchemaNode | undefined = { $ref: REF_PREFIX + root };
  let struct = shortName(root);
  let field = '';
  const goPath: string[] = [];
  let data: unknown = value;
  for (const seg of segments) {
    if (node) {
      const resolved = deref(defs, node);
      if (resolved.name && isStruct(resolved.node) && resolved.name !== QUANTITY && resolved.name !== INT_OR_STRING) {
        struct = shortName(resolved.name);
      }
      node = resolved.node;
    }
    if (Array.isArray(data)) {
      field += `[${seg}]`;
      node = node?.items;
      data = data[Number(seg)];
      continue;
    }
    const props = node?.properties;
    if (props && Object.prototype.hasOwnProperty.call(props, seg)) {
      field += field ? `.${seg}` : seg;
      goPath.push(seg);
      node = props[seg];
    } else if (node && typeof node.additionalProperties === 'object') {
      field += `[${seg}]`;
      node = node.additionalProperties;
    } else {
      field += field ? `.${seg}` : seg;
      goPath.push(seg);
      node = undefined;
    }
    data = data && typeof data === 'object' ? (data as Record<string, unknown>)[seg] : undefined;
  }
  return { field, goPath: goPath.join('.'), struct, node };
}

/** `/spec/containers/0/name` -> ['spec', 'containers', '0', 'name'] */
export function splitPointer(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
