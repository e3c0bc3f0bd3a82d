import t from 'tap';
import { Code } from '../../../src/scheduler/framework/status';
import { NODE_VOLUME_LIMITS, newNodeVolumeLimits } from '../../../src/scheduler/plugins/volume/node-volume-limits';
import {
  AZURE_DISK_LIMITS, CINDER_LIMITS, EBS_LIMITS, GCE_PD_LIMITS, VOLUME_KINDS, maxVolumesFromEnv, newAzureDiskLimits, newCinderLimits, newEBSLimits, newGCEPDLimits,
} from '../../../src/scheduler/plugins/volume/non-csi-limits';
import { ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, csiAttachLimitKey } from '../../../src/scheduler/plugins/volume/volume-limits';
import { VOLUME_PLUGINS } from '../../../src/scheduler/plugins/volume';
import type { KubeObject } from '../../../src/client/types';
import type { PluginFactory } from '../../../src/scheduler/framework/types';
import { makeNode, type NodeShape } from '../helpers';
import { makeClass, makeCSINode, makePV, makePVC, newState, podWith, volumeHandle, type VolumeWorld } from './volume-fixtures';

const csiPV = (name: string, driver = 'ebs.csi.aws.com', handle = name) => makePV(name, { source: { csi: { driver, volumeHandle: handle } } });
const boundClaim = (name: string, pv: string) => makePVC(name, { volumeName: pv, bound: true });

function filter(factory: PluginFactory, w: Partial<VolumeWorld>, pod: KubeObject, node: NodeShape = {}) {
  const { handle, snapshot } = volumeHandle({ nodes: [makeNode('n1', node)], ...w });
  return factory(undefined, handle).filter!(newState(), pod, snapshot.get('n1')!);
}

t.test('names, reason and the registry', async (t) => {
  t.equal(NODE_VOLUME_LIMITS, 'NodeVolumeLimits');
  t.same([EBS_LIMITS, GCE_PD_LIMITS, AZURE_DISK_LIMITS, CINDER_LIMITS], ['EBSLimits', 'GCEPDLimits', 'AzureDiskLimits', 'CinderLimits']);
  t.equal(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, 'node(s) exceed max volume count');
  t.same(Object.keys(VOLUME_PLUGINS).sort(), ['AzureDiskLimits', 'CinderLimits', 'EBSLimits', 'GCEPDLimits', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeRestrictions', 'VolumeZone']);
});

t.test('csiAttachLimitKey: short names are prefixed, long ones cut and hashed', async (t) => {
  t.equal(csiAttachLimitKey('ebs.csi.aws.com'), 'attachable-volumes-csi-ebs.csi.aws.com');
  const long = 'a-very-long-csi-driver-name.example.storage.vendor.com';
  const key = csiAttachLimitKey(long);
  t.equal(key.slice(0, 'attachable-volumes-csi-'.length + 23), `attachable-volumes-csi-${long.slice(0, 23)}`);
  t.equal(key.length, 'attachable-volumes-csi-'.length + 23 + 16);
});

t.test('NodeVolumeLimits: the CSINode count limits the driver, existing volumes included', async (t) => {
  const w: Partial<VolumeWorld> = {
    pvs: [csiPV('a'), csiPV('b')],
    pvcs: [boundClaim('ca', 'a'), boundClaim('cb', 'b')],
    pods: [podWith('old', ['ca'], { node: 'n1' })],
    csiNodes: [makeCSINode('n1', [{ name: 'ebs.csi.aws.com', count: 1 }])],
  };
  const s = filter(newNodeVolumeLimits, w, podWith('new', ['cb']));
  t.equal(s?.code, Code.Unschedulable);
  t.same(s?.reasons, [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]);
  t.equal(filter(newNodeVolumeLimits, { ...w, csiNodes: [makeCSINode('n1', [{ name: 'ebs.csi.aws.com', count: 2 }])] }, podWith('new', ['cb'])), undefined);
  t.equal(filter(newNodeVolumeLimits, w, podWith('new', ['ca'])), undefined, 'a volume already attached is not counted twice');
  t.equal(filter(newNodeVolumeLimits, { ...w, csiNodes: [] }, podWith('new', ['cb'])), undefined, 'no limit known: no check');
  const otherDriver = { ...w, pvs: [csiPV('a'), csiPV('b', 'other.csi')] };
  t.equal(filter(newNodeVolumeLimits, otherDriver, podWith('new', ['cb'])), undefined, 'limits are per driver');
});

t.test('NodeVolumeLimits: the node allocatable limit applies when the CSINode has none', async (t) => {
  const w: Partial<VolumeWorld> = { pvs: [csiPV('a'), csiPV('b')], pvcs: [boundClaim('ca', 'a'), boundClaim('cb', 'b')] };
  const node = { extra: { 'attachable-volumes-csi-ebs.csi.aws.com': '1' } };
  t.equal(filter(newNodeVolumeLimits, w, podWith('new', ['ca', 'cb']), node)?.code, Code.Unschedulable);
  t.equal(filter(newNodeVolumeLimits, w, podWith('new', ['ca']), node), undefined);
  const csiWins = { ...w, csiNodes: [makeCSINode('n1', [{ name: 'ebs.csi.aws.com', count: 2 }])] };
  t.equal(filter(newNodeVolumeLimits, csiWins, podWith('new', ['ca', 'cb']), node), undefined, 'the CSINode count overrides');
});

t.test('NodeVolumeLimits: unbound claims count against their class provisioner; in-tree ones do not', async (t) => {
  const w: Partial<VolumeWorld> = {
    pvs: [csiPV('a')],
    pvcs: [boundClaim('ca', 'a'), makePVC('new1', { storageClass: 'fast' }), makePVC('intree', { storageClass: 'ebs' })],
    classes: [makeClass('fast', { provisioner: 'ebs.csi.aws.com' }), makeClass('ebs', { provisioner: 'kubernetes.io/aws-ebs' })],
    pods: [podWith('old', ['ca'], { node: 'n1' })],
    csiNodes: [makeCSINode('n1', [{ name: 'ebs.csi.aws.com', count: 1 }])],
  };
  t.equal(filter(newNodeVolumeLimits, w, podWith('new', ['new1']))?.code, Code.Unschedulable);
  t.equal(filter(newNodeVolumeLimits, w, podWith('new', ['intree'])), undefined);
  t.equal(filter(newNodeVolumeLimits, w, podWith('new', ['missing'])), undefined, 'a missing claim is not counted');
  const inTreePV = { ...w, pvs: [csiPV('a'), makePV('aws', { source: { awsElasticBlockStore: { volumeID: 'vol-1' } } })], pvcs: [...w.pvcs!, boundClaim('caws', 'aws')] };
  t.equal(filter(newNodeVolumeLimits, inTreePV, podWith('new', ['caws'])), undefined, 'in-tree PVs are not migrated');
});

t.test('NodeVolumeLimits: errors and trivial cases', async (t) => {
  t.same(filter(newNodeVolumeLimits, {}, podWith('new', ['']))?.reasons, ['PersistentVolumeClaim had no name']);
  t.equal(filter(newNodeVolumeLimits, {}, podWith('new', ['']))?.code, Code.Error);
  t.equal(filter(newNodeVolumeLimits, {}, podWith('new', [])), undefined);
});

const ebs = (id: string) => ({ awsElasticBlockStore: { volumeID: id } });

t.test('EBSLimits: the node allocatable limit, shared volumes counted once', async (t) => {
  const node = { extra: { 'attachable-volumes-aws-ebs': '2' } };
  const pods = [podWith('old', [ebs('v1'), ebs('v2')], { node: 'n1' })];
  const s = filter(newEBSLimits, { pods }, podWith('new', [ebs('v3')]), node);
  t.equal(s?.code, Code.Unschedulable);
  t.same(s?.reasons, [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]);
  t.equal(filter(newEBSLimits, { pods }, podWith('new', [ebs('v1')]), node), undefined);
  t.equal(filter(newEBSLimits, { pods }, podWith('new', [{ gcePersistentDisk: { pdName: 'x' } }]), node), undefined, 'other kinds are not counted');
});

t.test('EBSLimits: kube defaults by instance type (39, 25 on Nitro)', async (t) => {
  const kind = VOLUME_KINDS[EBS_LIMITS];
  t.equal(kind.defaultLimit(makeNode('n')), 39);
  t.equal(kind.defaultLimit(makeNode('n', { labels: { 'node.kubernetes.io/instance-type': 'm5.large' } })), 25);
  t.equal(kind.defaultLimit(makeNode('n', { labels: { 'beta.kubernetes.io/instance-type': 't3.micro' } })), 25);
  t.equal(kind.defaultLimit(makeNode('n', { labels: { 'node.kubernetes.io/instance-type': 'm4.large' } })), 39);
  const pods = [podWith('old', Array.from({ length: 25 }, (_, i) => ebs(`v${i}`)), { node: 'n1' })];
  t.equal(filter(newEBSLimits, { pods }, podWith('new', [ebs('x')]), { labels: { 'node.kubernetes.io/instance-type': 'c5.xlarge' } })?.code, Code.Unschedulable);
  t.equal(filter(newEBSLimits, { pods }, podWith('new', [ebs('x')])), undefined);
});

t.test('other in-tree kinds and their defaults', async (t) => {
  t.equal(VOLUME_KINDS[GCE_PD_LIMITS].defaultLimit(makeNode('n')), 16);
  t.equal(VOLUME_KINDS[AZURE_DISK_LIMITS].defaultLimit(makeNode('n')), 16);
  t.equal(VOLUME_KINDS[CINDER_LIMITS].defaultLimit(makeNode('n')), 256);
  const gce = (id: string) => ({ gcePersistentDisk: { pdName: id } });
  const pods = [podWith('old', Array.from({ length: 16 }, (_, i) => gce(`d${i}`)), { node: 'n1' })];
  t.equal(filter(newGCEPDLimits, { pods }, podWith('new', [gce('x')]))?.code, Code.Unschedulable);
  t.equal(filter(newAzureDiskLimits, { pods: [podWith('old', [{ azureDisk: { diskName: 'a' } }], { node: 'n1' })] }, podWith('new', [{ azureDisk: { diskName: 'b' } }]), { extra: { 'attachable-volumes-azure-disk': '1' } })?.code, Code.Unschedulable);
  t.equal(filter(newCinderLimits, { pods: [podWith('old', [{ cinder: { volumeID: 'a' } }], { node: 'n1' })] }, podWith('new', [{ cinder: { volumeID: 'b' } }]), { extra: { 'attachable-volumes-cinder': '1' } })?.code, Code.Unschedulable);
});

t.test('in-tree claims: bound PVs by kind, unbound by provisioner, unknown ones assumed to match', async (t) => {
  const node = { extra: { 'attachable-volumes-aws-ebs': '1' } };
  const pods = [podWith('old', [ebs('v1')], { node: 'n1' })];
  const w: Partial<VolumeWorld> = {
    pods,
    pvs: [makePV('pv-ebs', { source: ebs('v2') }), makePV('pv-gce', { source: { gcePersistentDisk: { pdName: 'g' } } })],
    pvcs: [
      boundClaim('c-ebs', 'pv-ebs'), boundClaim('c-gce', 'pv-gce'), boundClaim('c-lost', 'pv-gone'),
      makePVC('c-new', { storageClass: 'aws' }), makePVC('c-other', { storageClass: 'csi' }),
    ],
    classes: [makeClass('aws', { provisioner: 'kubernetes.io/aws-ebs' }), makeClass('csi', { provisioner: 'example.com/csi' })],
  };
  t.equal(filter(newEBSLimits, w, podWith('new', ['c-ebs']), node)?.code, Code.Unschedulable);
  t.equal(filter(newEBSLimits, w, podWith('new', ['c-gce']), node), undefined);
  t.equal(filter(newEBSLimits, w, podWith('new', ['c-new']), node)?.code, Code.Unschedulable);
  t.equal(filter(newEBSLimits, w, podWith('new', ['c-other']), node), undefined);
  t.equal(filter(newEBSLimits, w, podWith('new', ['c-missing']), node)?.code, Code.Unschedulable, 'a missing claim counts');
  t.equal(filter(newEBSLimits, w, podWith('new', ['c-lost']), node)?.code, Code.Unschedulable, 'a missing volume counts');
  t.same(filter(newEBSLimits, w, podWith('new', ['']), node)?.reasons, ['PersistentVolumeClaim had no name']);
});

t.test('KUBE_MAX_PD_VOLS', async (t) => {
  t.equal(maxVolumesFromEnv({ KUBE_MAX_PD_VOLS: '5' }), 5);
  t.equal(maxVolumesFromEnv({ KUBE_MAX_PD_VOLS: '0' }), undefined);
  t.equal(maxVolumesFromEnv({ KUBE_MAX_PD_VOLS: 'x' }), undefined);
  t.equal(maxVolumesFromEnv({}), undefined);
});
