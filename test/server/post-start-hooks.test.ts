import t from 'tap';
import pino from 'pino';
import { PostStartHooks } from '../../src/server/post-start-hooks';

const logger = pino({ level: 'silent' });
const passes = async (check: () => Promise<void>) => check().then(() => true, () => false);

t.test('/livez passes unfinished hooks during the grace period; the plain check waits for them', async (t) => {
  let now = 0;
  const hooks = new PostStartHooks({ logger, clock: () => now });
  hooks.markStarted();
  let finish!: () => void;
  void hooks.run('slow', () => new Promise<void>((r) => (finish = r)));
  const [check] = hooks.healthChecks(['slow'], 5000);
  t.equal(check.name, 'poststarthook/slow');
  t.equal(await passes(check.check), false, 'healthz/readyz: not finished');
  t.equal(await passes(check.livezCheck!), true, 'livez: within the grace period');
  now = 6000;
  t.equal(await passes(check.livezCheck!), false, 'livez: after the grace period');
  finish();
  await new Promise((r) => setImmediate(r));
  t.equal(await passes(check.check), true);
  t.equal(await passes(check.livezCheck!), true);
});

t.test('without a grace period /livez waits as well; a failed hook stays failed', async (t) => {
  const hooks = new PostStartHooks({ logger, clock: () => 0 });
  await hooks.run('broken', () => Promise.reject(new Error('boom')));
  const [check] = hooks.healthChecks(['broken'], 0);
  await t.rejects(check.livezCheck!(), /PostStartHook "broken" failed: boom/);
});
