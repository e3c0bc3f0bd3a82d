import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MediaTypeStore } from '../../src/storage/codec/media-type-store';
import { PROTOBUF_MARKER, STORAGE_MEDIA_TYPES, StorageCodec, storedMediaType } from '../../src/storage/codec/storage-codec';
import { loadEncryptionConfig } from '../../src/storage/encryption/config';
import { EncryptingStore } from '../../src/storage/encryption/encrypting-store';
import { openSqliteStore } from '../../src/storage/sqlite/open-sqlite-store';
import { typicalPod } from '../../bench/storage-media-type';
import { tempDir } from './fixtures/temp-store';
import { everyKindManifests } from '../e2e/every-kind-manifests';

/** objects as the registry stores them (storage version, no resourceVersion) */
const objects: Record<string, Record<string, unknown>> = {
  '/registry/core/pods/default/web': typicalPod(),
  '/registry/core/configmaps/default/cm': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { 'a.yaml': 'x: 1\n', yes: 'no', n: '007', empty: '' } },
  '/registry/core/secrets/default/s': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', uid: 'u2', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { password: 'aHVudGVyMg==' }, type: 'Opaque' },
  '/registry/apps/deployments/default/d': {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default', uid: 'u3', generation: 2, creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'd' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'd' } },
      // kube's JSON of a template carries creationTimestamp: null, as the protobuf decoder gives it back
      template: { metadata: { creationTimestamp: null, labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1' } } }] } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: { observedGeneration: 2, replicas: 3, readyReplicas: 3 },
  },
  '/registry/rbac.authorization.k8s.io/clusterroles/view': { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'view', uid: 'u4', creationTimestamp: '2026-01-01T00:00:00Z' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  // a custom resource: always JSON
  '/registry/stable.example.com/crontabs/default/c': { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c', namespace: 'default', uid: 'u5' }, spec: { cronSpec: '* * * * */5', replicas: 1.5, extra: { nested: [1, 'two', null, true] } } },
};

const CUSTOM = '/registry/stable.example.com/crontabs/default/c';

t.test('each media type: the stored form, and every kind reads back as the same object', async (t) => {
  for (const mediaType of STORAGE_MEDIA_TYPES) {
    const dir = tempDir(t);
    const raw = await openSqliteStore(path.join(dir, 'state.db'));
    const store = new MediaTypeStore(raw, { mediaType });
    for (const [key, obj] of Object.entries(objects)) {
      const created = await store.create(key, JSON.stringify(obj));
      t.same(JSON.parse(created.value), obj, `${mediaType}: create answers the JSON`);
    }
    for (const [key, obj] of Object.entries(objects)) {
      const stored = (await raw.get(key))!.value;
      const expected = key === CUSTOM && mediaType === 'application/vnd.kubernetes.protobuf' ? 'application/json' : mediaType;
      t.equal(storedMediaType(stored), expected, `${mediaType}: ${key} is stored as ${expected}`);
      t.same(JSON.parse((await store.get(key))!.value), obj, `${mediaType}: ${key} reads back unchanged`);
    }
    if (mediaType === 'application/vnd.kubernetes.protobuf') {
      const pod = (await raw.get('/registry/core/pods/default/web'))!.value;
      t.ok(pod.startsWith(PROTOBUF_MARKER));
      t.equal(Buffer.from(pod.slice(PROTOBUF_MARKER.length), 'base64').subarray(0, 4).toString('latin1'), 'k8s\0', "kube's envelope magic");
    }
    const listed = await store.list('/registry/core/');
    t.equal(listed.items.length, 3);
    for (const kv of listed.items) t.same(JSON.parse(kv.value), objects[kv.key]);
    await raw.close();
  }
});

t.test('a data dir written with one media type reads with any other; a rewrite moves it to the current one', async (t) => {
  const dir = tempDir(t);
  const raw = await openSqliteStore(path.join(dir, 'state.db'));
  t.teardown(() => raw.close());
  const keys = Object.keys(objects).filter((k) => k !== CUSTOM);
  for (const [i, key] of keys.entries()) {
    const writer = new MediaTypeStore(raw, { mediaType: STORAGE_MEDIA_TYPES[i % 3] });
    await writer.create(key, JSON.stringify(objects[key]));
  }
  t.same(new Set(await Promise.all(keys.map(async (k) => storedMediaType((await raw.get(k))!.value)))), new Set(STORAGE_MEDIA_TYPES), 'all three forms in one store');
  for (const mediaType of STORAGE_MEDIA_TYPES) {
    const reader = new MediaTypeStore(raw, { mediaType });
    for (const key of keys) t.same(JSON.parse((await reader.get(key))!.value), objects[key], `${mediaType} reads ${key}`);
  }
  const json = new MediaTypeStore(raw, { mediaType: 'application/json' });
  const pb = keys.find((k, i) => i % 3 === 2)!;
  const kv = (await json.get(pb))!;
  t.equal(kv.stale, true, 'a protobuf value is stale for a JSON server');
  await json.update(pb, kv.value);
  t.equal(storedMediaType((await raw.get(pb))!.value), 'application/json');
  t.notOk((await json.get(pb))!.stale);
});

t.test('watch events and encryption see the right forms; compaction is unaffected', async (t) => {
  const dir = tempDir(t);
  const raw = await openSqliteStore(path.join(dir, 'state.db'));
  t.teardown(() => raw.close());
  const file = path.join(dir, 'enc.yaml');
  fs.writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys: [{name: k, secret: ${Buffer.alloc(32, 3).toString('base64')}}]\n`);
  const encrypted = new EncryptingStore(raw, loadEncryptionConfig(file));
  const store = new MediaTypeStore(encrypted, { mediaType: 'application/vnd.kubernetes.protobuf' });
  const key = '/registry/core/secrets/default/s';
  const events: string[] = [];
  const w = store.watch({ afterRevision: 0, prefix: '/registry/core/secrets/', onEvent: (e) => events.push(e.value), onError: () => {} });
  await store.create(key, JSON.stringify(objects[key]));
  const secret2 = { ...objects[key], data: { password: 'bmV3' } };
  await store.update(key, JSON.stringify(secret2));
  t.match((await raw.get(key))!.value, /^k8s:enc:aesgcm:v1:k:/, 'the protobuf text is encrypted below');
  t.ok((await encrypted.get(key))!.value.startsWith(PROTOBUF_MARKER), 'and is protobuf once decrypted');
  await raw.waitForRevision(raw.currentRevision(), 2000);
  for (let i = 0; i < 50 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  w.cancel();
  t.same(events.map((e) => JSON.parse(e)), [objects[key], secret2], 'watch events carry JSON');
  const removed = await store.compact(store.currentRevision());
  t.ok(removed >= 1, 'compaction trims the older revision');
  t.same(JSON.parse((await store.get(key))!.value), secret2);
});

t.test('the codec keeps JSON for what protobuf cannot carry; bad stored values are errors, not crashes', async (t) => {
  const codec = new StorageCodec('application/vnd.kubernetes.protobuf');
  t.equal(codec.encode('{"no":"typemeta"}'), '{"no":"typemeta"}');
  t.equal(codec.encode('"a string"'), '"a string"');
  t.equal(codec.encode('{"apiVersion":"v1","kind":"NoSuchKind"}'), '{"apiVersion":"v1","kind":"NoSuchKind"}');
  t.throws(() => codec.decode(`${PROTOBUF_MARKER}bm90IHByb3RvYnVm`));
  const dir = tempDir(t);
  const raw = await openSqliteStore(path.join(dir, 'state.db'));
  t.teardown(() => raw.close());
  await raw.create('/registry/core/configmaps/default/bad', `${PROTOBUF_MARKER}AAAA`);
  await t.rejects(new MediaTypeStore(raw, { mediaType: 'application/json' }).get('/registry/core/configmaps/default/bad'), /unable to decode the stored value of \/registry\/core\/configmaps\/default\/bad/);
});

/** the paths where `inner` has a value that `outer` lacks or holds differently */
function missingFrom(outer: unknown, inner: unknown, at = ''): string[] {
  if (inner !== null && typeof inner === 'object') {
    if (outer === null || typeof outer !== 'object') return [at];
    return Object.entries(inner as Record<string, unknown>).flatMap(([k, v]) => missingFrom((outer as Record<string, unknown>)[k], v, `${at}.${k}`));
  }
  return Object.is(outer, inner) ? [] : [at];
}

t.test('protobuf storage loses no field of any kind kubectl can make (Go zero values may appear, as in kube)', async (t) => {
  const yaml = await import('js-yaml');
  const codec = new StorageCodec('application/vnd.kubernetes.protobuf');
  let asProtobuf = 0;
  for (const m of everyKindManifests()) {
    const obj = yaml.load(m.yaml) as Record<string, unknown>;
    const stored = codec.encode(JSON.stringify(obj));
    if (storedMediaType(stored) === 'application/vnd.kubernetes.protobuf') asProtobuf++;
    t.same(missingFrom(JSON.parse(codec.decode(stored)), obj), [], `${String(obj.apiVersion)} ${String(obj.kind)}`);
  }
  t.ok(asProtobuf > 20, `${asProtobuf} kinds stored as protobuf`);
});
