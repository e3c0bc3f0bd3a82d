import t from 'tap';
import { Code } from '../../../src/scheduler/framework/status';
import { ERR_REASON_DISK_CONFLICT, VOLUME_RESTRICTIONS, newVolumeRestrictions } from '../../../src/scheduler/plugins/volume/volume-restrictions';
import { makeNode } from '../helpers';
import { newState, podWith, volumeHandle } from './volume-fixtures';

function check(existing: Record<string, unknown>, incoming: Record<string, unknown>) {
  const node = makeNode('n1');
  const { handle, snapshot } = volumeHandle({ nodes: [node], pods: [podWith('old', [existing], { node: 'n1' })] });
  const plugin = newVolumeRestrictions(undefined, handle);
  return plugin.filter!(newState(), podWith('new', [incoming]), snapshot.get('n1')!);
}

t.test('name', async (t) => {
  t.equal(newVolumeRestrictions(undefined, volumeHandle({ nodes: [] }).handle).name, VOLUME_RESTRICTIONS);
  t.equal(VOLUME_RESTRICTIONS, 'VolumeRestrictions');
});

t.test('GCE PD: the same disk conflicts unless both mounts are read-only', async (t) => {
  const s = check({ gcePersistentDisk: { pdName: 'd1' } }, { gcePersistentDisk: { pdName: 'd1' } });
  t.equal(s?.code, Code.Unschedulable);
  t.same(s?.reasons, [ERR_REASON_DISK_CONFLICT]);
  t.equal(ERR_REASON_DISK_CONFLICT, 'node(s) had no available disk');
  t.equal(check({ gcePersistentDisk: { pdName: 'd1', readOnly: true } }, { gcePersistentDisk: { pdName: 'd1', readOnly: true } }), undefined);
  t.equal(check({ gcePersistentDisk: { pdName: 'd1', readOnly: true } }, { gcePersistentDisk: { pdName: 'd1' } })?.code, Code.Unschedulable);
  t.equal(check({ gcePersistentDisk: { pdName: 'd1' } }, { gcePersistentDisk: { pdName: 'd2' } }), undefined);
});

t.test('AWS EBS: the same volume always conflicts, read-only or not', async (t) => {
  t.equal(check({ awsElasticBlockStore: { volumeID: 'v1', readOnly: true } }, { awsElasticBlockStore: { volumeID: 'v1', readOnly: true } })?.code, Code.Unschedulable);
  t.equal(check({ awsElasticBlockStore: { volumeID: 'v1' } }, { awsElasticBlockStore: { volumeID: 'v2' } }), undefined);
});

t.test('ISCSI: the same IQN conflicts unless both are read-only', async (t) => {
  t.equal(check({ iscsi: { iqn: 'iqn.a' } }, { iscsi: { iqn: 'iqn.a' } })?.code, Code.Unschedulable);
  t.equal(check({ iscsi: { iqn: 'iqn.a', readOnly: true } }, { iscsi: { iqn: 'iqn.a', readOnly: true } }), undefined);
  t.equal(check({ iscsi: { iqn: 'iqn.a' } }, { iscsi: { iqn: 'iqn.b' } }), undefined);
});

t.test('RBD: a shared monitor, pool and image conflict unless both are read-only', async (t) => {
  const a = { rbd: { monitors: ['m1', 'm2'], pool: 'p', image: 'i' } };
  t.equal(check(a, { rbd: { monitors: ['m2'], pool: 'p', image: 'i' } })?.code, Code.Unschedulable);
  t.equal(check(a, { rbd: { monitors: ['m3'], pool: 'p', image: 'i' } }), undefined, 'no monitor in common');
  t.equal(check(a, { rbd: { monitors: ['m1'], pool: 'q', image: 'i' } }), undefined, 'other pool');
  t.equal(check(a, { rbd: { monitors: ['m1'], pool: 'p', image: 'j' } }), undefined, 'other image');
  t.equal(check({ rbd: { ...a.rbd, readOnly: true } }, { rbd: { monitors: ['m1'], pool: 'p', image: 'i', readOnly: true } }), undefined);
});

t.test('other volume kinds and empty nodes never conflict', async (t) => {
  t.equal(check({ emptyDir: {} }, { emptyDir: {} }), undefined);
  const { handle, snapshot } = volumeHandle({ nodes: [makeNode('n1')] });
  t.equal(newVolumeRestrictions(undefined, handle).filter!(newState(), podWith('p', [{ gcePersistentDisk: { pdName: 'd1' } }]), snapshot.get('n1')!), undefined);
});
