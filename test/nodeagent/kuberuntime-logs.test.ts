/**
 * ContainerLogManager: a running container's log over the size limit is renamed with a timestamp
 * and reopened; older rotated files are compressed; beyond maxFiles the oldest go.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import t from 'tap';
import { ContainerLogManager } from '../../src/nodeagent/kuberuntime/container-log-manager';
import { harness, makePod } from './kuberuntime-harness';

t.test('log rotation', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  await h.sync(makePod());
  const container = [...h.cri.containers.values()][0];
  const reopened: string[] = [];
  (h.cri.runtime as { reopenContainerLog: (id: string) => Promise<void> }).reopenContainerLog = async (id) => {
    reopened.push(id);
    fs.writeFileSync(container.logPath, '');
  };
  let second = 0;
  const manager = new ContainerLogManager({ runtime: h.cri.runtime, maxSizeBytes: 10, maxFiles: 3, now: () => new Date(Date.UTC(2024, 0, 2, 3, 4, second++)) });
  const dir = path.dirname(container.logPath);
  fs.writeFileSync(container.logPath, 'small');
  await manager.rotateLogs();
  t.same(reopened, [], 'under the limit: untouched');
  for (let i = 0; i < 3; i++) {
    fs.writeFileSync(container.logPath, `round ${i} is long enough`);
    await manager.rotateLogs();
  }
  t.same(reopened.length, 3);
  t.same(fs.readdirSync(dir).sort(), ['0.log', '0.log.20240102-030401.gz', '0.log.20240102-030402'], 'maxFiles 3: the live log, one compressed, the newest rotated');
  t.equal(zlib.gunzipSync(fs.readFileSync(path.join(dir, '0.log.20240102-030401.gz'))).toString(), 'round 1 is long enough');
});
