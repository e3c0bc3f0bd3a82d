/** kube's envelope (k8s\0 + runtime.Unknown), decode errors, and the length-framed watch stream. */
import t from 'tap';
import { hasMagic, MAGIC, readEnvelope, splitFrames, writeEnvelope } from '../../src/codec/protobuf';
import { ProtobufBodyError } from '../../src/codec/protobuf';
import { codec } from './helpers';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', creationTimestamp: null }, data: { k: 'v' } };

t.test('the envelope: magic, typeMeta, raw, and Go\'s always-written empty strings', async (t) => {
  const bytes = codec.encodeObject(cm);
  t.same([...bytes.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  t.ok(hasMagic(bytes));
  const env = readEnvelope(bytes);
  t.equal(env.apiVersion, 'v1');
  t.equal(env.kind, 'ConfigMap');
  t.equal(env.contentEncoding, '');
  t.equal(env.contentType, '');
  t.same([...bytes.subarray(bytes.length - 4)], [0x1a, 0x00, 0x22, 0x00], 'contentEncoding and contentType written empty, as runtime.Unknown marshals');
  t.ok(writeEnvelope('v1', 'ConfigMap', env.raw).equals(bytes));
  t.equal(MAGIC.toString('latin1'), 'k8s\0');
});

t.test('decode errors say what kube says', async (t) => {
  const noMagic = Buffer.from('{"kind":"ConfigMap"}');
  t.throws(() => codec.decodeObject(noMagic), new ProtobufBodyError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]'));
  t.throws(() => codec.decodeObject(Buffer.alloc(0)), { message: 'empty data' });
  t.throws(() => codec.decodeObject(MAGIC), { message: 'empty body' });
  const raw = readEnvelope(codec.encodeObject(cm)).raw;
  const err = (() => {
    try {
      codec.decodeObject(writeEnvelope('v1', 'Gizmo', raw));
    } catch (e) {
      return e as ProtobufBodyError;
    }
  })();
  t.equal(err?.message, 'no kind "Gizmo" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"');
  t.same(err?.typeMeta, { apiVersion: 'v1', kind: 'Gizmo' });
  t.throws(() => codec.decodeObject(writeEnvelope('apps/v2', 'Deployment', raw)), /no kind "Deployment" is registered for version "apps\/v2"/);
  t.throws(() => codec.decodeObject(writeEnvelope('apps.example.com/v1', 'Deployment', raw)), /is registered/, 'a look-alike group is not kube\'s');
  t.throws(() => codec.decodeObject(writeEnvelope('', '', raw)), /Object 'Kind' is missing/);
  t.throws(() => codec.decodeObject(Buffer.concat([writeEnvelope('v1', 'ConfigMap', raw).subarray(0, 20)])), /unexpected EOF/);
  t.throws(() => codec.decodeObject(Buffer.concat([MAGIC, Buffer.from('...')])), ProtobufBodyError, 'garbage after the magic is a decode error, not a crash');
});

t.test('an empty typeMeta takes the kind the URL names, as kube defaults it', async (t) => {
  const raw = readEnvelope(codec.encodeObject(cm)).raw;
  const obj = codec.decodeObject(writeEnvelope('', '', raw), { apiVersion: 'v1', kind: 'ConfigMap' });
  t.same(obj, { kind: 'ConfigMap', apiVersion: 'v1', ...cm });
});

t.test('meta kinds resolve in any group version; Table has no protobuf form', async (t) => {
  t.equal(codec.messageFor('v1', 'Status')?.name, 'k8s.io.apimachinery.pkg.apis.meta.v1.Status');
  t.equal(codec.messageFor('apps/v1', 'DeleteOptions')?.name, 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
  t.notOk(codec.canEncode({ apiVersion: 'meta.k8s.io/v1', kind: 'Table' }));
  t.notOk(codec.canEncode({ major: '1', minor: '32' }), '/version has no TypeMeta');
  t.ok(codec.canEncode(cm));
});

t.test('watch frames: 4-byte length + bare WatchEvent whose object is an enveloped object', async (t) => {
  const frame = codec.encodeWatchEvent({ type: 'ADDED', object: cm });
  t.equal(frame.readUInt32BE(0), frame.length - 4);
  t.notOk(hasMagic(frame.subarray(4)), 'the WatchEvent itself has no envelope (kube\'s raw stream serializer)');
  const ev = codec.decodeWatchEvent(frame.subarray(4));
  t.same(ev, { type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', ...cm } });
  // the object inside is the same bytes as a plain response body
  t.ok(frame.includes(codec.encodeObject(cm)));

  const status = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 };
  const two = Buffer.concat([frame, codec.encodeWatchEvent({ type: 'ERROR', object: status })]);
  const { frames, rest } = splitFrames(Buffer.concat([two, two.subarray(0, 7)]));
  t.equal(frames.length, 2);
  t.equal(rest.length, 7, 'a partial frame waits for more bytes');
  t.match(codec.decodeWatchEvent(frames[1]), { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  const bookmark = codec.decodeWatchEvent(codec.encodeWatchEvent({ type: 'BOOKMARK', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } } } }).subarray(4));
  t.match(bookmark, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } } } });
});
