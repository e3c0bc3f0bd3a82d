/**
 * Image garbage collection with a fake image service: the high and low thresholds of the image
 * filesystem, unused images only (containers' and the sandbox image kept), least recently used
 * first, the minimum age, the eviction manager's delete-all, and kube's node events.
 */
import pino from 'pino';
import t from 'tap';
import { ImageGCManager, type ImageGCPolicy } from '../../src/nodeagent/images/image-gc';

const MB = 1_000_000;

function world(policy: Partial<ImageGCPolicy> = {}) {
  const clock = { ms: 1_000_000_000 };
  const images = new Map<string, { size: number; tags: string[] }>();
  const containers: { imageRef: string; image: string }[] = [];
  const fs = { capacityBytes: 1000 * MB, availableBytes: 500 * MB };
  const removed: string[] = [];
  const events: string[] = [];
  const failRemove = new Set<string>();
  const gc = new ImageGCManager({
    policy: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 2 * 60_000, ...policy },
    images: {
      listImages: async () => [...images].map(([id, i]) => ({ id, size: String(i.size), repoTags: i.tags, repoDigests: [] })) as never,
      imageStatus: async (spec) => ({ image: [...images].find(([, i]) => i.tags.includes(spec.image ?? '')) ? { id: [...images].find(([, i]) => i.tags.includes(spec.image ?? ''))![0] } : null }) as never,
      removeImage: async (spec) => {
        const id = spec.image ?? '';
        if (failRemove.has(id)) throw new Error(`rpc error: cannot remove ${id}`);
        const image = images.get(id);
        images.delete(id);
        removed.push(id);
        if (image) fs.availableBytes += image.size;
      },
    },
    runtime: { listContainers: async () => containers as never },
    imageFsStats: async () => ({ ...fs }),
    sandboxImage: 'registry.k8s.io/pause:3.2',
    event: (type, reason, message) => void events.push(`${type} ${reason}: ${message}`),
    logger: pino({ level: 'silent' }),
    now: () => clock.ms,
  });
  return { clock, images, containers, fs, removed, events, gc, failRemove };
}

t.test('below the high threshold nothing is removed', async (t) => {
  const w = world();
  w.images.set('sha256:old', { size: 100 * MB, tags: ['old:1'] });
  await w.gc.detectImages(0);
  w.fs.availableBytes = 160 * MB; // 84% used
  await w.gc.garbageCollect();
  t.same(w.removed, []);
});

t.test('at the high threshold: unused images, least recently used first, down to the low threshold', async (t) => {
  const w = world();
  w.images.set('sha256:pause', { size: 1 * MB, tags: ['registry.k8s.io/pause:3.2'] });
  w.images.set('sha256:a', { size: 30 * MB, tags: ['a:1'] });
  w.images.set('sha256:b', { size: 30 * MB, tags: ['b:1'] });
  w.images.set('sha256:c', { size: 30 * MB, tags: ['c:1'] });
  w.images.set('sha256:used', { size: 500 * MB, tags: ['used:1'] });
  await w.gc.detectImages(0);
  // b was used most recently, then a; c never
  w.containers.push({ imageRef: 'sha256:b', image: 'b:1' });
  w.clock.ms += 1000;
  await w.gc.detectImages(w.clock.ms);
  w.containers.length = 0;
  w.containers.push({ imageRef: 'sha256:a', image: 'a:1' });
  w.clock.ms += 1000;
  await w.gc.detectImages(w.clock.ms);
  w.containers.length = 0;
  w.containers.push({ imageRef: 'sha256:used', image: 'used:1' });
  w.clock.ms += 1000;
  w.fs.availableBytes = 150 * MB; // 85% used: free 200 - 150 = 50 MB
  await w.gc.garbageCollect();
  t.same(w.removed, ['sha256:c', 'sha256:b'], 'never-used first, then the least recently used, until 50 MB are freed');
  t.same(w.events, []);
});

t.test('the minimum age: just-pulled images are kept', async (t) => {
  const w = world();
  w.images.set('sha256:stale', { size: 10 * MB, tags: ['stale:1'] });
  await w.gc.detectImages(0);
  w.clock.ms += 1000;
  w.images.set('sha256:new', { size: 300 * MB, tags: ['new:1'] });
  await w.gc.detectImages(w.clock.ms);
  w.clock.ms += 60_000;
  w.fs.availableBytes = 100 * MB; // free 100 MB
  await t.rejects(w.gc.garbageCollect(), { message: 'failed to garbage collect required amount of images. Wanted to free 100000000 bytes, but freed 10000000 bytes' });
  t.same(w.removed, ['sha256:stale'], 'the image detected a minute ago is younger than 2m');
  t.same(w.events, ['Warning FreeDiskSpaceFailed: failed to garbage collect required amount of images. Wanted to free 100000000 bytes, but freed 10000000 bytes']);
  w.clock.ms += 60_000;
  w.fs.availableBytes = 100 * MB;
  await w.gc.garbageCollect();
  t.same(w.removed, ['sha256:stale', 'sha256:new'], 'old enough now');
});

t.test('the sandbox image is always in use; deleteUnusedImages removes every other unused image', async (t) => {
  const w = world();
  w.images.set('sha256:pause', { size: 1 * MB, tags: ['registry.k8s.io/pause:3.2'] });
  w.images.set('sha256:x', { size: 1 * MB, tags: ['x:1'] });
  w.images.set('sha256:y', { size: 1 * MB, tags: ['y:1'] });
  w.images.set('sha256:z', { size: 1 * MB, tags: ['z:1'] });
  w.containers.push({ imageRef: 'sha256:z', image: 'z:1' });
  await w.gc.detectImages(0);
  w.clock.ms += 1000;
  await w.gc.deleteUnusedImages();
  t.same(w.removed.sort(), ['sha256:x', 'sha256:y']);
});

t.test('removal errors are aggregated; periodic failures raise ImageGCFailed the second time in a row', async (t) => {
  const w = world();
  w.images.set('sha256:stuck', { size: 100 * MB, tags: ['stuck:1'] });
  await w.gc.detectImages(0);
  w.failRemove.add('sha256:stuck');
  w.fs.availableBytes = 10 * MB;
  await t.rejects(w.gc.freeSpace(100, w.clock.ms), { message: 'wanted to free 100 bytes, but freed 0 bytes space with errors in image deletion: rpc error: cannot remove sha256:stuck' });
  await w.gc.periodicCollect();
  t.same(w.events, [], 'the first failure only logs');
  await w.gc.periodicCollect();
  t.match(w.events, [/^Warning ImageGCFailed: wanted to free \d+ bytes, but freed 0 bytes/]);
  w.fs.capacityBytes = 0;
  await t.rejects(w.gc.garbageCollect(), { message: 'invalid capacity 0 on image filesystem' });
  t.match(w.events.at(-1), 'Warning InvalidDiskCapacity: invalid capacity 0 on image filesystem');
});

t.test('bad policies are refused as kubelet refuses them', async (t) => {
  t.throws(() => world({ highThresholdPercent: 101 }), { message: 'invalid HighThresholdPercent 101, must be in range [0-100]' });
  t.throws(() => world({ highThresholdPercent: 50, lowThresholdPercent: 60 }), { message: 'LowThresholdPercent 60 can not be higher than HighThresholdPercent 50' });
});
