import t from 'tap';
import { openStore, parseStoreUrl } from '../../src/storage/open';
import { postgresSkipReason, startPostgres } from '../helpers/postgres';
import { runStoreContract } from './store-contract';

const skip = postgresSkipReason();

t.test('PostgreSQL store contract', { skip }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  let n = 0;
  runStoreContract(t, async () => {
    const store = await openStore(await pg.database(`contract_${++n}`));
    return {
      store,
      async cleanup() {
        await store.close();
      },
    };
  });
});

t.test('postgres:// URLs', async (t) => {
  t.same(parseStoreUrl('postgres://u:secret@db.example:6432/kube'), { dialect: 'postgres', url: 'postgres://u:secret@db.example:6432/kube', id: 'postgres://u@db.example:6432/kube' });
  t.same(parseStoreUrl('postgresql://u@h/kube?sslmode=verify-full').dialect, 'postgres');
  t.equal((parseStoreUrl('postgres://u@h/kube') as { id: string }).id, 'postgres://u@h:5432/kube');
  t.throws(() => parseStoreUrl('postgres://u@h:5432/'), /names no database/);
  t.throws(() => parseStoreUrl('postgres://u@h/kube?sslmode=sometimes'), /sslmode "sometimes" is not one of/);
});
