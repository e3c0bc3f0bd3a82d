/**
 * --storage-media-type: the form objects are written to the store in, and the recognition of every
 * form on the way back, whatever the flag says (kube's storage decoder recognizes JSON and the
 * protobuf envelope alike), so a data dir written with one setting reads with another.
 *
 *   application/json                     the object's JSON (Ballast's default)
 *   application/yaml                     the object as YAML (JSON schema, so that every string reads back as a string)
 *   application/vnd.kubernetes.protobuf  `k8s:pb:` + base64 of kube's protobuf envelope (`k8s\0` + runtime.Unknown);
 *                                        the store holds text, and base64 keeps the bytes exact
 *
 * Only objects with an apiVersion and kind that kube has a protobuf message for are written as
 * protobuf; custom resources and Ballast's own records stay JSON (kube never stores custom
 * resources as protobuf either). YAML is used for any object with an apiVersion and kind.
 */
import yaml from 'js-yaml';
import { ProtobufCodec, loadProtoSchema } from '../../codec/protobuf';

export const STORAGE_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;
export type StorageMediaType = (typeof STORAGE_MEDIA_TYPES)[number];

/** the text before the base64 of a protobuf envelope */
export const PROTOBUF_MARKER = 'k8s:pb:';

let sharedProtobuf: ProtobufCodec | undefined;
/** kube's protobuf codec; the schema is loaded the first time protobuf is written or read */
function protobufCodec(): ProtobufCodec {
  return (sharedProtobuf ??= new ProtobufCodec({ schema: loadProtoSchema() }));
}

/** which form a stored value is in */
export function storedMediaType(stored: string): StorageMediaType {
  // the common case first: a JSON object
  if (stored.charCodeAt(0) === 0x7b) return 'application/json';
  if (stored.startsWith(PROTOBUF_MARKER)) return 'application/vnd.kubernetes.protobuf';
  const first = stored.trimStart()[0];
  // JSON objects and arrays; YAML of an object starts with a key
  return first === '{' || first === '[' || first === '"' || first === undefined ? 'application/json' : /^\s*(-?\d|true$|false$|null$)/.test(stored) ? 'application/json' : 'application/yaml';
}

function hasTypeMeta(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const { apiVersion, kind } = v as Record<string, unknown>;
  return typeof apiVersion === 'string' && apiVersion !== '' && typeof kind === 'string' && kind !== '';
}

export class StorageCodec {
  readonly mediaType: StorageMediaType;

  constructor(mediaType: StorageMediaType = 'application/json') {
    this.mediaType = mediaType;
  }

  /** the stored form of a JSON value in the configured media type (JSON when that type cannot carry it) */
  encode(json: string): string {
    if (this.mediaType === 'application/json') return json;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return json;
    }
    if (!hasTypeMeta(value)) return json;
    if (this.mediaType === 'application/yaml') return yaml.dump(value, { schema: yaml.JSON_SCHEMA, lineWidth: -1, noRefs: true });
    const codec = protobufCodec();
    if (!codec.canEncode(value)) return json;
    try {
      return PROTOBUF_MARKER + codec.encodeObject(value).toString('base64');
    } catch {
      // a value the message cannot carry is kept as JSON rather than refused
      return json;
    }
  }

  /** the JSON of a stored value in any of the media types; throws when it is none of them */
  decode(stored: string): string {
    switch (storedMediaType(stored)) {
      case 'application/json':
        return stored;
      case 'application/yaml':
        return JSON.stringify(yaml.load(stored, { schema: yaml.JSON_SCHEMA }));
      default:
        return JSON.stringify(protobufCodec().decodeObject(Buffer.from(stored.slice(PROTOBUF_MARKER.length), 'base64')));
    }
  }

  /**
   * whether a stored YAML or protobuf value is in another form than a write would give it now, so
   * that rewriting it (kubectl replace, any update) moves it to the configured media type. JSON
   * values are never marked: telling whether another type could carry one costs a full decode.
   */
  isStale(stored: string): boolean {
    const type = storedMediaType(stored);
    return type !== 'application/json' && type !== this.mediaType;
  }
}
