/**
 * The wire messages, loaded once from proto/k8s/*.proto and compiled into plans: per message, its
 * fields with their wire type and how kube's Go types show them in JSON (the Ballast options in
 * proto/k8s/ballast/options.proto). Plans are built eagerly at load and never change afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'double' | 'float';

/**
 * messages whose JSON form is not an object (kube's custom JSON marshalers). apiextensions' JSON is
 * embedded JSON like RawExtension; its schema wrappers are a schema or a list / boolean / names.
 */
export type WellKnown =
  | 'Time'
  | 'MicroTime'
  | 'Duration'
  | 'Quantity'
  | 'IntOrString'
  | 'RawExtension'
  | 'FieldsV1'
  | 'SchemaOrArray'
  | 'SchemaOrBool'
  | 'SchemaOrStringArray';

/**
 * pointer: present zero is meaningful; value: always in JSON; omitempty: zero is left out of JSON.
 * For repeated and map fields only `value` (always in JSON, [] or {} when absent) differs.
 */
export type GoPresence = 'pointer' | 'value' | 'omitempty';

export interface FieldPlan {
  id: number;
  /** position in MessagePlan.fields */
  index: number;
  /** the JSON key */
  name: string;
  repeated: boolean;
  map: boolean;
  /** scalar type of the field, or of a map's value */
  scalar?: ScalarType;
  /** message type of the field, or of a map's value */
  message?: MessagePlan;
  go: GoPresence;
  /** an embedded Go struct: its JSON fields sit in the parent object */
  inline: boolean;
}

export interface MessagePlan {
  /** full name without the leading dot: `k8s.io.api.apps.v1.Deployment` */
  name: string;
  /** fields in declaration order (kube's Go struct order: the JSON key order) */
  fields: FieldPlan[];
  /** fields in number order: the order Go writes them on the wire */
  wireOrder: FieldPlan[];
  /** fields by number (sparse) */
  byId: (FieldPlan | undefined)[];
  wellKnown?: WellKnown;
  /** a Go slice type: JSON is the array of the `items` field */
  jsonList: boolean;
}

export interface ProtoSchema {
  /** the plan of a message by full name (`k8s.io.api.core.v1.Pod`), undefined if not loaded */
  message(name: string): MessagePlan | undefined;
  /** every loaded message name */
  readonly messageNames: readonly string[];
}

const WELL_KNOWN: Record<string, WellKnown> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'Duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'FieldsV1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RawExtension',
};
for (const v of ['v1', 'v1beta1']) {
  const pkg = `k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.${v}`;
  WELL_KNOWN[`${pkg}.JSON`] = 'RawExtension';
  WELL_KNOWN[`${pkg}.JSONSchemaPropsOrArray`] = 'SchemaOrArray';
  WELL_KNOWN[`${pkg}.JSONSchemaPropsOrBool`] = 'SchemaOrBool';
  WELL_KNOWN[`${pkg}.JSONSchemaPropsOrStringArray`] = 'SchemaOrStringArray';
}

const SCALARS = new Set<string>(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float']);

/**
 * where proto/k8s lives: the repository root is three levels above src/codec/protobuf and four above
 * dist/src/codec/protobuf; both are tried so ts-node tests and the built server find the same files
 */
export function defaultProtoDir(): string {
  const candidates = [path.join(__dirname, '../../../proto/k8s'), path.join(__dirname, '../../../../proto/k8s')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'meta-v1.proto')));
  if (!found) throw new Error(`protobuf definitions not found; looked in ${candidates.join(', ')}`);
  return found;
}

/** parse every proto/k8s/*.proto into one root (imports are the sibling files, so they are not followed) */
function loadRoot(dir: string): protobuf.Root {
  const root = new protobuf.Root();
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.proto')).sort();
  for (const file of files) {
    protobuf.parse(fs.readFileSync(path.join(dir, file), 'utf8'), root, { keepCase: true });
  }
  root.resolveAll();
  return root;
}

function allTypes(ns: protobuf.NamespaceBase, out: protobuf.Type[] = []): protobuf.Type[] {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) out.push(nested);
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) allTypes(nested, out);
  }
  return out;
}

function presence(field: protobuf.Field): GoPresence {
  const go = field.options?.['(ballast.go)'];
  return go === 'pointer' || go === 'value' ? go : 'omitempty';
}

/** one schema per directory: plans never change once built, so every codec in a process shares them */
const loaded = new Map<string, ProtoSchema>();

export function loadProtoSchema(dir = defaultProtoDir()): ProtoSchema {
  let schema = loaded.get(dir);
  if (!schema) loaded.set(dir, (schema = buildProtoSchema(dir)));
  return schema;
}

function buildProtoSchema(dir: string): ProtoSchema {
  const root = loadRoot(dir);
  const types = allTypes(root);
  const plans = new Map<string, MessagePlan>();
  // two passes so that recursive and forward references resolve to the same plan objects
  for (const t of types) {
    const name = t.fullName.slice(1);
    plans.set(name, { name, fields: [], wireOrder: [], byId: [], wellKnown: WELL_KNOWN[name], jsonList: t.options?.['(ballast.json_list)'] === true });
  }
  for (const t of types) {
    const plan = plans.get(t.fullName.slice(1))!;
    for (const f of t.fieldsArray) {
      const isMap = f instanceof protobuf.MapField;
      if (f.resolvedType && !(f.resolvedType instanceof protobuf.Type)) throw new Error(`${plan.name}.${f.name}: enums are not used by kube`);
      const fp: FieldPlan = {
        id: f.id,
        index: plan.fields.length,
        // the JSON name when kube's proto field is named otherwise (aPIGroup for apiGroup,
        // admissionregistration's Webhooks) or the JSON name is no proto identifier ($ref, x-kubernetes-*)
        name: typeof f.options?.json_name === 'string' ? (f.options.json_name as string) : f.name,
        repeated: f.repeated && !isMap,
        map: isMap,
        go: presence(f),
        inline: f.options?.['(ballast.inline)'] === true,
      };
      if (f.resolvedType) fp.message = plans.get(f.resolvedType.fullName.slice(1));
      else if (SCALARS.has(f.type)) fp.scalar = f.type as ScalarType;
      else throw new Error(`${plan.name}.${f.name}: unsupported type ${f.type}`);
      if (isMap && (f as protobuf.MapField).keyType !== 'string') throw new Error(`${plan.name}.${f.name}: map keys are strings in kube`);
      plan.fields.push(fp);
      plan.byId[fp.id] = fp;
    }
  }
  for (const p of plans.values()) {
    p.wireOrder = [...p.fields].sort((a, b) => a.id - b.id);
    Object.freeze(p.fields);
    Object.freeze(p.wireOrder);
  }
  const names = Object.freeze([...plans.keys()].sort());
  return {
    message: (name) => plans.get(name),
    messageNames: names,
  };
}
