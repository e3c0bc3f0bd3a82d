/**
 * Protobuf bytes of one message -> the JSON kube would write for it, driven by its plan: Go value
 * fields with omitempty drop their zero values, pointer fields keep a present zero (replicas: 0),
 * embedded structs are flattened into their parent, and kube's own JSON forms (times, quantities,
 * int-or-string, embedded JSON) are restored. Unknown field numbers are skipped, as Go does.
 */
import protobuf from 'protobufjs';
import type { FieldPlan, MessagePlan, ScalarType } from './schema';
import { formatDuration, formatMicroTime, formatTime } from './time';

type Reader = protobuf.Reader;

/** bytes that are not a valid encoding of the expected message */
export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

const WIRE_TYPE: Record<ScalarType, number> = { string: 2, bytes: 2, bool: 0, int32: 0, int64: 0, uint32: 0, uint64: 0, double: 1, float: 5 };

interface LongLike {
  toNumber(): number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : (v as LongLike).toNumber());

/** what an embedded RawExtension holding a protobuf object decodes to (set by the envelope reader) */
export type NestedObjectDecoder = (raw: Uint8Array) => unknown;

interface DecodeState {
  nested?: NestedObjectDecoder;
}

function readScalar(r: Reader, type: ScalarType): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return num(r.int64());
    case 'uint32':
      return r.uint32();
    case 'uint64':
      return num(r.uint64());
    case 'double':
      return r.double();
    case 'float':
      return r.float();
  }
}

function expectWireType(plan: MessagePlan, f: FieldPlan, wt: number, want: number): void {
  if (wt !== want) throw new ProtobufDecodeError(`proto: wrong wireType = ${wt} for field ${f.name} of ${plan.name}`);
}

function subEnd(r: Reader): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > r.len) throw new ProtobufDecodeError('unexpected EOF');
  return end;
}

/** the first bytes field (number 1) of a message such as RawExtension */
function readRawField(r: Reader, end: number): Uint8Array | undefined {
  let raw: Uint8Array | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0o12) raw = r.bytes();
    else r.skipType(tag & 7);
  }
  return raw;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function readEmbeddedJson(raw: Uint8Array | undefined, state: DecodeState): unknown {
  if (raw === undefined || raw.length === 0) return null;
  if (state.nested && raw.length >= 4 && MAGIC.every((b, i) => raw[i] === b)) return state.nested(raw);
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw new ProtobufDecodeError(`embedded object is not JSON: ${(err as Error).message}`);
  }
}

function readWellKnown(r: Reader, end: number, plan: MessagePlan, state: DecodeState): unknown {
  switch (plan.wellKnown) {
    case 'Time':
    case 'MicroTime': {
      let seen = false;
      let seconds = 0;
      let nanos = 0;
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 0o10) seconds = num(r.int64());
        else if (tag === 0o20) nanos = r.int32();
        else r.skipType(tag & 7);
        seen = true;
      }
      // an empty message is Go's zero time, which kube's JSON writes as null
      if (!seen) return null;
      return plan.wellKnown === 'Time' ? formatTime({ seconds, nanos }) : formatMicroTime({ seconds, nanos });
    }
    case 'Duration': {
      let nanos = 0;
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 0o10) nanos = num(r.int64());
        else r.skipType(tag & 7);
      }
      return formatDuration(nanos);
    }
    case 'Quantity': {
      let text = '0';
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 0o12) text = r.string();
        else r.skipType(tag & 7);
      }
      return text;
    }
    case 'IntOrString': {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 0o10) type = num(r.int64());
        else if (tag === 0o20) intVal = r.int32();
        else if (tag === 0o32) strVal = r.string();
        else r.skipType(tag & 7);
      }
      return type === 1 ? strVal : intVal;
    }
    case 'RawExtension':
    case 'FieldsV1':
      return readEmbeddedJson(readRawField(r, end), state);
  }
  return undefined;
}

function readValue(r: Reader, plan: MessagePlan, f: FieldPlan, wt: number, state: DecodeState): unknown {
  if (f.message) {
    expectWireType(plan, f, wt, 2);
    return readMessage(r, subEnd(r), f.message, state);
  }
  expectWireType(plan, f, wt, WIRE_TYPE[f.scalar!]);
  return readScalar(r, f.scalar!);
}

function zeroOf(f: FieldPlan, state: DecodeState): unknown {
  if (f.message) return readMessage(protobuf.Reader.create(new Uint8Array(0)), 0, f.message, state);
  return f.scalar === 'string' || f.scalar === 'bytes' ? '' : f.scalar === 'bool' ? false : 0;
}

function readMapEntry(r: Reader, plan: MessagePlan, f: FieldPlan, state: DecodeState): [string, unknown] {
  const end = subEnd(r);
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0o12) key = r.string();
    else if (tag >>> 3 === 2) value = readValue(r, plan, f, tag & 7, state);
    else r.skipType(tag & 7);
  }
  return [key, value === undefined ? zeroOf(f, state) : value];
}

/**
 * embedded objects whose TypeMeta the wire cannot carry but kube's JSON shows: kube's conversion of
 * StatefulSetSpec sets apiVersion/kind on every volumeClaimTemplates item (issue 87583)
 */
const EMBEDDED_TYPE_META: Record<string, Record<string, { apiVersion: string; kind: string }>> = {
  'k8s.io.api.apps.v1.StatefulSetSpec': { volumeClaimTemplates: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' } },
};

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/** the wrappers of apiextensions' schema language: read as plain messages, then shown as kube's JSON shows them */
const SCHEMA_WRAPPERS = new Set(['SchemaOrArray', 'SchemaOrBool', 'SchemaOrStringArray']);

function schemaWrapperJson(kind: string, v: Record<string, unknown>): unknown {
  switch (kind) {
    case 'SchemaOrArray':
      return Array.isArray(v.jSONSchemas) && v.jSONSchemas.length > 0 ? v.jSONSchemas : (v.schema ?? null);
    case 'SchemaOrBool':
      return v.schema !== undefined ? v.schema : v.allows === true;
    default:
      return Array.isArray(v.property) && v.property.length > 0 ? v.property : (v.schema ?? null);
  }
}

function readMessage(r: Reader, end: number, plan: MessagePlan, state: DecodeState): unknown {
  if (plan.wellKnown && SCHEMA_WRAPPERS.has(plan.wellKnown)) {
    return schemaWrapperJson(plan.wellKnown, readMessage(r, end, { ...plan, wellKnown: undefined }, state) as Record<string, unknown>);
  }
  if (plan.wellKnown) return readWellKnown(r, end, plan, state);
  const slots: unknown[] = new Array(plan.fields.length);
  while (r.pos < end) {
    const tag = r.uint32();
    const wt = tag & 7;
    const f = plan.byId[tag >>> 3];
    if (!f) {
      r.skipType(wt);
      continue;
    }
    if (f.map) {
      const [k, v] = readMapEntry(r, plan, f, state);
      ((slots[f.index] ??= {}) as Record<string, unknown>)[k] = v;
    } else if (f.repeated) {
      const list = (slots[f.index] ??= []) as unknown[];
      if (f.scalar && wt === 2 && WIRE_TYPE[f.scalar] !== 2) {
        // packed numbers: Go writes them unpacked in proto2 but reads both forms
        const packedEnd = subEnd(r);
        while (r.pos < packedEnd) list.push(readScalar(r, f.scalar));
      } else list.push(readValue(r, plan, f, wt, state));
    } else {
      slots[f.index] = readValue(r, plan, f, wt, state);
    }
  }
  if (r.pos !== end) throw new ProtobufDecodeError('unexpected EOF');
  if (plan.jsonList) return (slots[0] as unknown[] | undefined) ?? [];

  const out: Record<string, unknown> = {};
  for (const f of plan.fields) {
    const v = slots[f.index];
    if (f.inline) {
      if (v && typeof v === 'object') Object.assign(out, v);
      continue;
    }
    if (v === undefined) {
      // a Go slice or map without omitempty is always in kube's JSON
      if (f.go === 'value' && (f.repeated || f.map)) out[f.name] = f.map ? {} : [];
      continue;
    }
    // a Go value with omitempty: zero means unset (int-or-string's zero is the integer 0)
    if (f.go === 'omitempty' && !f.repeated && !f.map && (f.scalar || f.message?.wellKnown === 'IntOrString') && isZero(v)) continue;
    out[f.name] = v;
  }
  const embedded = EMBEDDED_TYPE_META[plan.name];
  if (embedded) {
    for (const [field, tm] of Object.entries(embedded)) {
      const items = out[field];
      if (Array.isArray(items)) out[field] = items.map((item) => ({ ...tm, ...(item as object) }));
    }
  }
  return out;
}

/** the JSON value of the protobuf bytes of message `plan` */
export function decodeMessage(plan: MessagePlan, bytes: Uint8Array, nested?: NestedObjectDecoder): unknown {
  const r = protobuf.Reader.create(bytes);
  try {
    return readMessage(r, bytes.length, plan, { nested });
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw err;
    // protobufjs reports truncated input as a RangeError
    throw new ProtobufDecodeError(err instanceof RangeError ? 'unexpected EOF' : (err as Error).message);
  }
}
