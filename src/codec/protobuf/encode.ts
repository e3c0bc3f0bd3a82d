/**
 * JSON value -> protobuf bytes of one message, driven by its plan. The output follows gogo-protobuf's
 * Go marshaling, so it matches what kube itself writes: fields in number order, Go value fields
 * always written (zero included), pointer fields only when set, map entries sorted by key.
 */
import protobuf from 'protobufjs';
import type { FieldPlan, MessagePlan, ScalarType } from './schema';
import { parseDuration, parseTimestamp } from './time';

type Writer = protobuf.Writer;

/** a value that cannot be written as the message its field names */
export class ProtobufEncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufEncodeError';
  }
}

const WIRE_TYPE: Record<ScalarType, number> = { string: 2, bytes: 2, bool: 0, int32: 0, int64: 0, uint32: 0, uint64: 0, double: 1, float: 5 };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function writeScalar(w: Writer, type: ScalarType, v: unknown): void {
  switch (type) {
    case 'string':
      w.string(typeof v === 'string' ? v : String(v));
      return;
    case 'bytes':
      // []byte is base64 in JSON
      w.bytes(Buffer.from(typeof v === 'string' ? v : '', 'base64'));
      return;
    case 'bool':
      w.bool(v === true);
      return;
    case 'int32':
      w.int32(Number(v) | 0);
      return;
    case 'int64':
      w.int64(Math.trunc(Number(v)) || 0);
      return;
    case 'uint32':
      w.uint32(Number(v) >>> 0);
      return;
    case 'uint64':
      w.uint64(Math.trunc(Number(v)) || 0);
      return;
    case 'double':
      w.double(Number(v));
      return;
    case 'float':
      w.float(Number(v));
      return;
  }
}

const ZERO: Record<ScalarType, unknown> = { string: '', bytes: '', bool: false, int32: 0, int64: 0, uint32: 0, uint64: 0, double: 0, float: 0 };

/** the body of a kube type with its own JSON form */
function writeWellKnown(w: Writer, plan: MessagePlan, v: unknown): void {
  switch (plan.wellKnown) {
    case 'Time':
    case 'MicroTime': {
      // a zero (null) time is an empty message, as metav1.Time.Marshal writes it
      if (v === null || v === undefined || v === '') return;
      let ts;
      try {
        ts = parseTimestamp(String(v));
      } catch (err) {
        throw new ProtobufEncodeError((err as Error).message);
      }
      w.uint32(0o10).int64(ts.seconds).uint32(0o20).int32(ts.nanos);
      return;
    }
    case 'Duration': {
      let nanos = 0;
      if (typeof v === 'number') nanos = v;
      else if (typeof v === 'string') {
        try {
          nanos = parseDuration(v);
        } catch (err) {
          throw new ProtobufEncodeError((err as Error).message);
        }
      }
      w.uint32(0o10).int64(nanos);
      return;
    }
    case 'Quantity':
      // resource.Quantity is its canonical string; the zero quantity is "0"
      w.uint32(0o12).string(v === null || v === undefined ? '0' : String(v));
      return;
    case 'IntOrString':
      if (typeof v === 'string') w.uint32(0o10).int64(1).uint32(0o20).int32(0).uint32(0o32).string(v);
      else w.uint32(0o10).int64(0).uint32(0o20).int32(Number(v ?? 0) | 0).uint32(0o32).string('');
      return;
    case 'RawExtension':
    case 'FieldsV1':
      // embedded JSON travels as its bytes; an unset one is an empty message
      if (v === null || v === undefined) return;
      w.uint32(0o12).bytes(Buffer.from(JSON.stringify(v)));
      return;
  }
}

/** kube's JSON of an apiextensions schema wrapper -> its message fields */
function schemaWrapperFields(kind: string, v: unknown): Record<string, unknown> {
  switch (kind) {
    case 'SchemaOrArray':
      return Array.isArray(v) ? { jSONSchemas: v } : isObject(v) ? { schema: v } : {};
    case 'SchemaOrBool':
      return isObject(v) ? { allows: true, schema: v } : { allows: v === true };
    default:
      return Array.isArray(v) ? { property: v } : isObject(v) ? { schema: v } : {};
  }
}

function writeBody(w: Writer, plan: MessagePlan, v: unknown): void {
  if (plan.wellKnown === 'SchemaOrArray' || plan.wellKnown === 'SchemaOrBool' || plan.wellKnown === 'SchemaOrStringArray') {
    // Go holds pointers and slices here: only what is set goes on the wire
    const fields = schemaWrapperFields(plan.wellKnown, v);
    for (const f of plan.wireOrder) {
      const fv = fields[f.name];
      if (Array.isArray(fv)) for (const item of fv) writeOne(w, f, item);
      else if (fv !== undefined) writeOne(w, f, fv);
    }
    return;
  }
  if (plan.wellKnown) return writeWellKnown(w, plan, v);
  if (plan.jsonList) {
    // a Go slice type (ExtraValue): the JSON array is the items field
    if (Array.isArray(v)) for (const item of v) w.uint32((1 << 3) | 2).string(String(item));
    return;
  }
  if (v === null || v === undefined) v = {};
  if (!isObject(v)) throw new ProtobufEncodeError(`${plan.name}: expected an object, got ${Array.isArray(v) ? 'an array' : typeof v}`);
  writeFields(w, plan, v);
}

function writeOne(w: Writer, f: FieldPlan, v: unknown): void {
  if (f.message) {
    w.uint32((f.id << 3) | 2).fork();
    writeBody(w, f.message, v);
    w.ldelim();
    return;
  }
  w.uint32((f.id << 3) | WIRE_TYPE[f.scalar!]);
  writeScalar(w, f.scalar!, v === null || v === undefined ? ZERO[f.scalar!] : v);
}

function writeMap(w: Writer, f: FieldPlan, v: Record<string, unknown>): void {
  // gogo sorts map keys so that the encoding is deterministic
  for (const key of Object.keys(v).sort()) {
    w.uint32((f.id << 3) | 2).fork();
    w.uint32((1 << 3) | 2).string(key);
    const value = v[key];
    if (f.message) {
      w.uint32((2 << 3) | 2).fork();
      writeBody(w, f.message, value);
      w.ldelim();
    } else {
      w.uint32((2 << 3) | WIRE_TYPE[f.scalar!]);
      writeScalar(w, f.scalar!, value === null || value === undefined ? ZERO[f.scalar!] : value);
    }
    w.ldelim();
  }
}

function writeFields(w: Writer, plan: MessagePlan, obj: Record<string, unknown>): void {
  for (const f of plan.wireOrder) {
    // an embedded Go struct reads its fields from the same JSON object
    const v = f.inline ? obj : obj[f.name];
    if (f.map) {
      if (isObject(v)) writeMap(w, f, v);
    } else if (f.repeated) {
      if (Array.isArray(v)) for (const item of v) writeOne(w, f, item);
    } else if (v !== undefined && v !== null) {
      writeOne(w, f, v);
    } else if (f.go !== 'pointer') {
      // Go value fields are always on the wire, with their zero value when unset
      writeOne(w, f, undefined);
    }
  }
}

/** the protobuf bytes of `value` as the message `plan` */
export function encodeMessage(plan: MessagePlan, value: unknown): Uint8Array {
  const w = protobuf.Writer.create();
  writeBody(w, plan, value);
  return w.finish();
}
