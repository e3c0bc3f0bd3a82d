import t from 'tap';
import { Indexer } from '../../../src/client/indexer';
import { AssumeCache } from '../../../src/scheduler/plugins/volume/assume-cache';
import { makePV } from './volume-fixtures';

function cache() {
  const store = new Indexer();
  store.upsert(makePV('pv1', { resourceVersion: '5' }));
  return { store, cache: new AssumeCache(() => store, 'v1.PersistentVolume') };
}

t.test('an assumed object is read until restored', async (t) => {
  const { cache: c } = cache();
  const assumed = makePV('pv1', { resourceVersion: '5', labels: { assumed: 'yes' } });
  c.assume(assumed);
  t.equal(c.get('pv1'), assumed);
  t.equal(c.list()[0], assumed);
  t.not(c.getAPI('pv1'), assumed, 'the API view ignores assumptions');
  c.restore('pv1');
  t.not(c.get('pv1'), assumed);
});

t.test('a newer informer object replaces the assumption', async (t) => {
  const { store, cache: c } = cache();
  c.assume(makePV('pv1', { resourceVersion: '5', labels: { assumed: 'yes' } }));
  const newer = makePV('pv1', { resourceVersion: '6' });
  store.upsert(newer);
  t.equal(c.get('pv1'), newer);
  t.notOk(c.isAssumed('pv1'));
});

t.test('assuming an unknown or older object fails with kube\'s wording', async (t) => {
  const { cache: c } = cache();
  t.throws(() => c.assume(makePV('pv9')), { message: 'could not find v1.PersistentVolume "pv9"' });
  t.throws(() => c.assume(makePV('pv1', { resourceVersion: '4' })), { message: 'v1.PersistentVolume "pv1" is out of sync (stored: 5, assume: 4)' });
});
