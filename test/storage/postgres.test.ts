import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openStore, openStores, parseStoreUrl } from '../../src/storage/open';
import { makeCa, makeCert } from '../helpers/test-pki';
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

t.test('TLS to the database: --etcd-cafile checks the server, --etcd-certfile/--etcd-keyfile are the client certificate', { skip }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-pg-tls-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = makeCa(dir, 'db');
  const server = makeCert(dir, 'server', ca, { commonName: 'db', ips: ['127.0.0.1'], usage: 'server' });
  const client = makeCert(dir, 'client', ca, { commonName: 'postgres', usage: 'client' });
  const otherCa = makeCa(dir, 'other');
  const pg = await startPostgres({
    tls: { certFile: server.certFile, keyFile: server.keyFile, caFile: ca.certFile },
    hba: ['hostssl all all 127.0.0.1/32 cert'],
  });
  t.teardown(() => pg.stop());
  const tls = { caFile: ca.certFile, certFile: client.certFile, keyFile: client.keyFile };
  const { store } = await openStores({ url: pg.url, tls });
  const kv = await store.create('/tls/a', 'x');
  t.equal(kv.modRevision, 1, 'a write over TLS, authenticated by the client certificate');
  await store.close();
  await t.rejects(openStore(pg.url), /failed: no pg_hba.conf entry for host "127.0.0.1", user "postgres", database "ballast", no encryption/, 'no TLS: refused by the server');
  await t.rejects(openStore(pg.url, { tls: { caFile: otherCa.certFile, certFile: client.certFile, keyFile: client.keyFile } }), /failed: .*(self.signed|unable to verify|certificate)/i, 'a server certificate from another CA: refused');
  await t.rejects(openStore(`${pg.url}?sslmode=require`), /no pg_hba.conf entry|certificate/, 'TLS without a client certificate: refused by the server');
  await t.rejects(openStore(`${pg.url}?sslmode=disable`, { tls }), /sslmode=disable in .* contradicts the --etcd-cafile/);
});
