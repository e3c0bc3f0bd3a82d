import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openStore } from '../../src/storage/open';
import { runStoreContract } from './store-contract';

t.test('SQLite store contract', async (t) => {
  runStoreContract(t, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-store-'));
    const store = await openStore(`sqlite://${dir}/state.db`);
    return {
      store,
      async cleanup() {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
