/** the process runtime's pod log directory: /var/log/pods when writable, else under --root-dir */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { processPodLogsDir, writableDir } from '../../src/nodeagent/runtimes/process/pod-logs-dir';

t.test('a writable (or creatable) directory is kept; else the root dir\'s pod-logs', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-pod-logs-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  t.ok(writableDir(path.join(dir, 'missing', 'deeper')), 'a missing directory under a writable one can be made');
  const file = path.join(dir, 'file');
  fs.writeFileSync(file, '');
  t.notOk(writableDir(path.join(file, 'pods')), 'a path under a file cannot');
  t.equal(processPodLogsDir(path.join(dir, 'pods'), '/root-dir'), path.join(dir, 'pods'));
  t.equal(processPodLogsDir(path.join(file, 'pods'), '/root-dir'), '/root-dir/pod-logs');
});
