/**
 * The .proto files against the schema source: every definition our schemas (src/schema) describe
 * has a message, and every property a field of a compatible type, so nothing a client sends in
 * protobuf is dropped. (Embedded Go structs contribute their fields to the parent's JSON.)
 */
import t from 'tap';
import { definitions } from '../../src/schema';
import type { SchemaNode } from '../../src/schema';
import type { FieldPlan, MessagePlan } from '../../src/codec/protobuf';
import { schema } from './helpers';

/** io.k8s.api.apps.v1.X -> k8s.io.api.apps.v1.X; io.k8s.kube-aggregator.* -> k8s.io.kube_aggregator.* */
const protoName = (definition: string) => definition.replace(/^io\.k8s\.([^.]+)\./, (_m, mod: string) => `k8s.io.${mod.replace(/-/g, '_')}.`);
const refName = (ref: string) => protoName(ref.replace('#/definitions/', ''));

/** the JSON fields of a message: its own plus those of embedded structs */
function jsonFields(plan: MessagePlan, out = new Map<string, FieldPlan>()): Map<string, FieldPlan> {
  for (const f of plan.fields) {
    if (f.inline && f.message) jsonFields(f.message, out);
    else out.set(f.name, f);
  }
  return out;
}

const WELL_KNOWN_SCHEMA: Record<string, string> = {
  'date-time': 'Time',
  'int-or-string': 'IntOrString',
};

/** why a schema node and a field (one element of it, for repeated and map fields) do not match; '' when they do */
function mismatch(node: SchemaNode, f: FieldPlan, element: boolean): string {
  if (!element && node.type === 'array') {
    if (!f.repeated && !f.message?.jsonList) return 'array but not a repeated field';
    if (f.message?.jsonList) return '';
    return mismatch(node.items ?? {}, f, true);
  }
  if (!element && node.type === 'object' && node.additionalProperties && typeof node.additionalProperties === 'object') {
    if (!f.map) return 'map but not a map field';
    return mismatch(node.additionalProperties, f, true);
  }
  if (!element && (f.repeated || f.map)) return `a ${f.repeated ? 'repeated' : 'map'} field for a ${node.type ?? node.$ref} schema`;
  if (node.$ref) {
    const want = refName(node.$ref);
    return f.message?.name === want ? '' : `expected message ${want}, field is ${f.message?.name ?? f.scalar}`;
  }
  if (node['x-kubernetes-preserve-unknown-fields']) return f.message?.wellKnown === 'RawExtension' || f.message?.wellKnown === 'FieldsV1' ? '' : 'embedded JSON needs RawExtension';
  const wk = node.format ? WELL_KNOWN_SCHEMA[node.format] : undefined;
  if (wk) return f.message?.wellKnown === wk ? '' : `expected ${wk}`;
  switch (node.type) {
    case 'string':
      if (node.format === 'byte') return f.scalar === 'bytes' ? '' : 'expected bytes';
      return f.scalar === 'string' || f.message?.wellKnown === 'Quantity' ? '' : `expected string, field is ${f.scalar ?? f.message?.name}`;
    case 'integer':
      return f.scalar === (node.format === 'int64' ? 'int64' : 'int32') || (f.scalar === 'int64' && node.format !== 'int32') ? '' : `expected ${node.format}, field is ${f.scalar}`;
    case 'number':
      return f.scalar === 'double' || f.scalar === 'float' ? '' : 'expected a floating field';
    case 'boolean':
      return f.scalar === 'bool' ? '' : 'expected bool';
    case 'object':
      return f.message && !f.message.wellKnown ? '' : 'expected a message';
  }
  return '';
}

t.test('every schema definition has a message and every property a compatible field', async (t) => {
  const problems: string[] = [];
  let checked = 0;
  for (const [name, def] of Object.entries(definitions)) {
    const plan = schema.message(protoName(name));
    if (!plan) {
      problems.push(`${name}: no message`);
      continue;
    }
    if (plan.wellKnown) continue;
    const fields = jsonFields(plan);
    for (const [prop, node] of Object.entries(def.properties ?? {})) {
      // TypeMeta is the envelope's, not the message's
      if (prop === 'apiVersion' || prop === 'kind') continue;
      const f = fields.get(prop);
      if (!f) {
        problems.push(`${name}.${prop}: no field`);
        continue;
      }
      const why = mismatch(node, f, false);
      if (why) problems.push(`${name}.${prop}: ${why}`);
      checked++;
    }
  }
  t.same(problems, []);
  t.ok(checked > 1000, `checked ${checked} properties`);
});

t.test('the messages a served kind needs are all there, lists included', async (t) => {
  for (const name of [
    'k8s.io.apimachinery.pkg.runtime.Unknown',
    'k8s.io.apimachinery.pkg.apis.meta.v1.Status',
    'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent',
    'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    'k8s.io.api.apps.v1.DeploymentList',
    'k8s.io.api.core.v1.ConfigMapList',
    'k8s.io.api.autoscaling.v1.Scale',
    'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  ]) {
    t.ok(schema.message(name), name);
  }
  t.notOk(schema.message('k8s.io.apimachinery.pkg.apis.meta.v1.Table'), 'kube has no protobuf Table');
});
