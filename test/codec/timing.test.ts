/**
 * Encode/decode cost of a realistic Deployment and of a 500-item ConfigMap list, against JSON as a
 * yardstick. The printed numbers are the measurement; the assertions only catch a gross regression.
 */
import t from 'tap';
import * as fx from '../schema/fixtures';
import { codec } from './helpers';

function perOp(fn: () => unknown, iterations: number): number {
  for (let i = 0; i < Math.min(20, iterations); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / iterations;
}

t.test('encode/decode timings', async (t) => {
  const deployment = fx.deployment();
  const dBytes = codec.encodeObject(deployment);
  const configMap = (i: number) => ({
    metadata: { name: `cm-${i}`, namespace: 'default', uid: `uid-${i}`, resourceVersion: String(i + 10), creationTimestamp: '2024-05-01T10:00:00Z', labels: { app: 'web', idx: String(i) } },
    data: { 'app.properties': 'a=1\nb=2\n'.repeat(4), mode: 'prod' },
  });
  const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '600' }, items: Array.from({ length: 500 }, (_, i) => configMap(i)) };
  const lBytes = codec.encodeObject(list);
  const lJson = JSON.stringify(list);

  const rows = {
    'Deployment encode': perOp(() => codec.encodeObject(deployment), 500),
    'Deployment decode': perOp(() => codec.decodeObject(dBytes), 500),
    'Deployment JSON.stringify': perOp(() => JSON.stringify(deployment), 500),
    '500 ConfigMaps encode': perOp(() => codec.encodeObject(list), 20),
    '500 ConfigMaps decode': perOp(() => codec.decodeObject(lBytes), 20),
    '500 ConfigMaps JSON.stringify': perOp(() => JSON.stringify(list), 20),
    '500 ConfigMaps JSON.parse': perOp(() => JSON.parse(lJson), 20),
  };
  for (const [name, ms] of Object.entries(rows)) t.comment(`${name}: ${ms.toFixed(3)} ms`);
  t.comment(`sizes: Deployment ${dBytes.length} B protobuf vs ${JSON.stringify(deployment).length} B JSON; list ${lBytes.length} B vs ${lJson.length} B`);
  t.ok(rows['Deployment encode'] < 5 && rows['Deployment decode'] < 5, 'a Deployment takes well under 5 ms each way');
  t.ok(rows['500 ConfigMaps encode'] < 200 && rows['500 ConfigMaps decode'] < 200, 'a 500-item list takes under 200 ms each way');
});
