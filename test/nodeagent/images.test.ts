/**
 * The image manager (kubelet's pkg/kubelet/images): pull policies, kube's events and errors, the
 * pull back-off, pull secrets as credentials; image references and Go durations.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import t from 'tap';
import { Backoff } from '../../src/nodeagent/backoff';
import { CriError } from '../../src/nodeagent/cri/cri-error';
import { formatGoDuration } from '../../src/nodeagent/images/go-duration';
import { ImageManager } from '../../src/nodeagent/images/image-manager';
import { applyDefaultImageTag, imageRegistry } from '../../src/nodeagent/images/image-reference';
import { credentialsForImage } from '../../src/nodeagent/images/pull-credentials';
import { FakeCri } from './fake-cri';
import { makePod } from './kuberuntime-harness';

function setup(serializeImagePulls = true) {
  const cri = new FakeCri();
  const events: string[] = [];
  let now = 1_000_000;
  const manager = new ImageManager({
    images: cri.imageService,
    recorder: { event: (_pod, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    now: () => now,
    backoff: new Backoff(10_000, 300_000, () => now),
    serializeImagePulls,
  });
  return { cri, events, manager, advance: (ms: number) => (now += ms) };
}

t.test('pull policies', async (t) => {
  const { cri, events, manager } = setup();
  const pod = makePod();
  cri.images.set('busybox:1.36', 'sha256:present');
  t.same(await manager.ensureImageExists(pod, { name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }, []), { imageRef: 'sha256:present' });
  t.same(events.pop(), 'Normal Pulled Container image "busybox:1.36" already present on machine');
  t.same(cri.pulls, []);

  const always = await manager.ensureImageExists(pod, { name: 'app', image: 'busybox:1.36', imagePullPolicy: 'Always' }, []);
  t.match(always, { imageRef: /^sha256:/ });
  t.equal(events[0], 'Normal Pulling Pulling image "busybox:1.36"');
  t.match(events[1], /^Normal Pulled Successfully pulled image "busybox:1\.36" in \d+(\.\d+)?(µs|ms|s)$/);
  events.length = 0;

  t.same(await manager.ensureImageExists(pod, { name: 'app', image: 'nginx:1', imagePullPolicy: 'Never' }, []), {
    error: 'ErrImageNeverPull',
    message: 'Container image "nginx:1" is not present with pull policy of Never',
  });
  t.same(events.pop(), 'Warning ErrImageNeverPull Container image "nginx:1" is not present with pull policy of Never');

  await manager.ensureImageExists(pod, { name: 'app', image: 'nginx' }, []);
  t.same(cri.pulls.at(-1)?.image, 'nginx:latest', 'no tag: :latest, pulled (default policy Always)');

  t.same(await manager.ensureImageExists(pod, { name: 'app', image: 'Bad Image' }, []), {
    error: 'InvalidImageName',
    message: 'Failed to apply default image tag "Bad Image": couldn\'t parse image reference "Bad Image": invalid reference format',
  });
});

t.test('a failed pull: ErrImagePull, then ImagePullBackOff until the back-off passes', async (t) => {
  const { cri, events, manager, advance } = setup();
  const pod = makePod();
  const container = { name: 'app', image: 'example.com/app:1', imagePullPolicy: 'IfNotPresent' };
  cri.pullErrors.set('example.com/app:1', new CriError('ImageService/PullImage', GrpcStatus.NOT_FOUND, 'example.com/app:1: not found'));
  t.same(await manager.ensureImageExists(pod, container, []), { error: 'ErrImagePull', message: 'rpc error: code = NotFound desc = example.com/app:1: not found' });
  t.same(events.pop(), 'Warning Failed Failed to pull image "example.com/app:1": rpc error: code = NotFound desc = example.com/app:1: not found');
  advance(5000);
  t.same(await manager.ensureImageExists(pod, container, []), { error: 'ImagePullBackOff', message: 'Back-off pulling image "example.com/app:1"' });
  t.same(events.pop(), 'Normal BackOff Back-off pulling image "example.com/app:1"');
  t.equal(cri.pulls.length, 1, 'no pull during the back-off');
  advance(6000);
  t.match(await manager.ensureImageExists(pod, container, []), { error: 'ErrImagePull' });
  t.equal(cri.pulls.length, 2, 'pulled again after 10 s');
  advance(11_000);
  t.match(await manager.ensureImageExists(pod, container, []), { error: 'ImagePullBackOff' }, 'now 20 s');
  cri.pullErrors.clear();
  advance(10_000);
  t.match(await manager.ensureImageExists(pod, container, []), { imageRef: /^sha256:/ });
});

t.test('pull secrets become the pull credentials', async (t) => {
  const { cri, manager } = setup();
  const secret = {
    name: 'regcred',
    data: {
      '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { 'example.com': { auth: Buffer.from('user:secret').toString('base64') }, 'https://index.docker.io/v1/': { username: 'hub', password: 'pw' } } })),
    },
  };
  await manager.ensureImageExists(makePod(), { name: 'app', image: 'example.com/team/app:1' }, [secret]);
  t.match(cri.pulls.at(-1)?.auth, { username: 'user', password: 'secret', serverAddress: 'example.com' });
  t.match(credentialsForImage('busybox:1', [secret]), [{ username: 'hub', password: 'pw' }], 'Docker Hub short names');
  t.same(credentialsForImage('other.io/x:1', [secret]), []);
  await manager.ensureImageExists(makePod(), { name: 'app', image: 'other.io/x:1' }, [secret]);
  t.equal(cri.pulls.at(-1)?.auth, undefined, 'no matching registry: anonymous');
});

t.test('serialized pulls run one at a time', async (t) => {
  for (const serialize of [true, false]) {
    const { cri, manager } = setup(serialize);
    let active = 0;
    let most = 0;
    const pull = cri.imageService.pullImage.bind(cri.imageService);
    (cri.imageService as { pullImage: typeof pull }).pullImage = async (...args) => {
      most = Math.max(most, ++active);
      await new Promise((r) => setTimeout(r, 20));
      active--;
      return pull(...args);
    };
    await Promise.all(['a:1', 'b:1', 'c:1'].map((image) => manager.ensureImageExists(makePod(), { name: 'app', image, imagePullPolicy: 'Always' }, [])));
    t.equal(most, serialize ? 1 : 3, `serializeImagePulls=${serialize}`);
  }
});

t.test('image references and durations', async (t) => {
  t.equal(applyDefaultImageTag('busybox'), 'busybox:latest');
  t.equal(applyDefaultImageTag('localhost:5000/app'), 'localhost:5000/app:latest');
  t.equal(applyDefaultImageTag('app:1.2'), 'app:1.2');
  t.equal(applyDefaultImageTag(`app@sha256:${'a'.repeat(64)}`), `app@sha256:${'a'.repeat(64)}`);
  t.throws(() => applyDefaultImageTag('UPPER/case'));
  t.equal(imageRegistry('busybox'), 'docker.io');
  t.equal(imageRegistry('quay.io/x/y'), 'quay.io');
  t.same([10_000, 20_000, 80_000, 160_000, 300_000, 1234.5, 0.25, 3_600_000].map(formatGoDuration), ['10s', '20s', '1m20s', '2m40s', '5m0s', '1.2345s', '250µs', '1h0m0s']);
});
