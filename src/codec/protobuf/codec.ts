/**
 * Kube objects as JSON values <-> kube's protobuf encoding (application/vnd.kubernetes.protobuf):
 * the envelope, the message the envelope's apiVersion/kind names, and watch events. Pure functions
 * of a loaded ProtoSchema; the HTTP codec (src/http/codecs/protobuf.ts) wraps this.
 */
import protobuf from 'protobufjs';
import { decodeMessage, ProtobufDecodeError } from './decode';
import { encodeMessage, ProtobufEncodeError } from './encode';
import { frame, hasMagic, MAGIC, readEnvelope, writeEnvelope } from './envelope';
import type { MessagePlan, ProtoSchema } from './schema';

export interface TypeMetaValue {
  apiVersion: string;
  kind: string;
}

/** a decode failure; `typeMeta` is set once the envelope named a kind (kube words its 400 by it) */
export class ProtobufBodyError extends ProtobufDecodeError {
  constructor(
    message: string,
    readonly typeMeta?: TypeMetaValue,
  ) {
    super(message);
    this.name = 'ProtobufBodyError';
  }
}

export interface WatchEventValue {
  type: string;
  object: unknown;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/** meta types kube registers in every group version (AddToGroupVersion) and the unversioned ones */
const META_KINDS = new Set([
  'Status', 'WatchEvent', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions', 'ListOptions',
  'List', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList', 'PartialObjectMetadata', 'PartialObjectMetadataList',
]);

/** kube's proto packages of the groups whose package is not `k8s.io.api.<first label of the group>` */
const PACKAGES: Record<string, string> = {
  '': 'k8s.io.api.core',
  'flowcontrol.apiserver.k8s.io': 'k8s.io.api.flowcontrol',
  'internal.apiserver.k8s.io': 'k8s.io.api.apiserverinternal',
  'rbac.authorization.k8s.io': 'k8s.io.api.rbac',
  'apiextensions.k8s.io': 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'k8s.io.kube_aggregator.pkg.apis.apiregistration',
};

/** the proto package of a group's version; undefined for groups that are not kube's (custom resources) */
export function protoPackageOf(group: string, version: string): string | undefined {
  const known = PACKAGES[group];
  if (known) return `${known}.${version}`;
  const short = group.split('.')[0];
  // the other groups in k8s.io are named after their first label (events.k8s.io -> events)
  if (group.includes('.') && group !== `${short}.k8s.io`) return undefined;
  return `k8s.io.api.${short}.${version}`;
}

const PREFIX_TEXT = `[${[...MAGIC].join(' ')}]`;

export interface ProtobufCodecOptions {
  schema: ProtoSchema;
}

export class ProtobufCodec {
  readonly #schema: ProtoSchema;

  constructor(opts: ProtobufCodecOptions) {
    this.#schema = opts.schema;
  }

  /**
   * the message of an apiVersion/kind; undefined when kube has no protobuf form for it (Table,
   * aggregated discovery, version.Info) or the group is not one of kube's
   */
  messageFor(apiVersion: string, kind: string): MessagePlan | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (!version || !kind) return undefined;
    const pkg = protoPackageOf(group, version);
    if (!pkg) return undefined;
    return this.#schema.message(`${pkg}.${kind}`) ?? (META_KINDS.has(kind) ? this.#schema.message(`${META}.${kind}`) : undefined);
  }

  /** whether `value` is an object with an apiVersion and kind that has a protobuf form */
  canEncode(value: unknown): boolean {
    const tm = typeMetaOf(value);
    return tm !== undefined && this.messageFor(tm.apiVersion, tm.kind) !== undefined;
  }

  /** the enveloped protobuf of an object; its apiVersion and kind choose the message */
  encodeObject(value: unknown): Buffer {
    const tm = typeMetaOf(value);
    const plan = tm && this.messageFor(tm.apiVersion, tm.kind);
    if (!tm || !plan) throw new ProtobufEncodeError(`no protobuf form for ${tm ? `${tm.kind} in ${tm.apiVersion}` : 'an object without apiVersion and kind'}`);
    return writeEnvelope(tm.apiVersion, tm.kind, encodeMessage(plan, value));
  }

  /**
   * an enveloped object as the JSON kube would write for it, with kind and apiVersion from the
   * envelope; `defaults` fills an empty kind or version as kube's decoder defaults them from the URL
   */
  decodeObject(data: Uint8Array, defaults?: TypeMetaValue): Record<string, unknown> {
    if (data.length === 0) throw new ProtobufBodyError('empty data');
    if (!hasMagic(data)) throw new ProtobufBodyError(`provided data does not appear to be a protobuf message, expected prefix ${PREFIX_TEXT}`);
    let env;
    try {
      env = readEnvelope(data);
    } catch (err) {
      throw err instanceof ProtobufDecodeError ? new ProtobufBodyError(err.message) : err;
    }
    const named = env.kind !== '';
    const kind = env.kind || defaults?.kind || '';
    const apiVersion = env.apiVersion || defaults?.apiVersion || '';
    const typeMeta = named ? { apiVersion, kind } : undefined;
    const goTypeMeta = `runtime.TypeMeta{APIVersion:"${env.apiVersion}", Kind:"${env.kind}"}`;
    if (!kind) throw new ProtobufBodyError(`Object 'Kind' is missing in '${goTypeMeta}'`, typeMeta);
    if (!apiVersion) throw new ProtobufBodyError(`Object 'apiVersion' is missing in '${goTypeMeta}'`, typeMeta);
    const plan = this.messageFor(apiVersion, kind);
    if (!plan) throw new ProtobufBodyError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`, typeMeta);
    try {
      const body = decodeMessage(plan, env.raw, (raw) => this.decodeObject(raw)) as Record<string, unknown>;
      // kube's JSON starts with the TypeMeta
      return { kind, apiVersion, ...body };
    } catch (err) {
      if (err instanceof ProtobufBodyError) throw err;
      if (err instanceof ProtobufDecodeError) throw new ProtobufBodyError(err.message, typeMeta);
      throw err;
    }
  }

  /**
   * one frame of a protobuf watch stream: length, then a bare meta/v1 WatchEvent whose object is
   * the enveloped object (kube's raw stream serializer around its embedded encoder)
   */
  encodeWatchEvent(event: WatchEventValue): Buffer {
    const object = this.encodeObject(event.object);
    const w = protobuf.Writer.create();
    // WatchEvent{type: 1, object: RawExtension{raw: 1}}, the raw bytes being the enveloped object
    w.uint32(0o12).string(event.type).uint32(0o22).fork().uint32(0o12).bytes(object).ldelim();
    return frame(w.finish());
  }

  /** a WatchEvent message (one frame without its length) back to {type, object} */
  decodeWatchEvent(message: Uint8Array): WatchEventValue {
    const value = decodeMessage(this.#schema.message(`${META}.WatchEvent`)!, message, (raw) => this.decodeObject(raw)) as Record<string, unknown>;
    return { type: String(value.type ?? ''), object: value.object };
  }
}

function typeMetaOf(value: unknown): TypeMetaValue | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { apiVersion, kind } = value as Record<string, unknown>;
  return typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
}
