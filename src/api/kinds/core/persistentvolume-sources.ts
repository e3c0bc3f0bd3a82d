/**
 * The volume sources of a PersistentVolume: kube's rule that exactly one is set (the first wins and
 * every later one is "may not specify more than 1 volume type"), the required fields of each source
 * with kube's paths (it checks gcePersistentDisk under `persistentDisk`), and the source defaults
 * (SetDefaults_ISCSIPersistentVolumeSource, _RBDPersistentVolumeSource, _ScaleIOPersistentVolumeSource,
 * _AzureDiskVolumeSource, _HostPathVolumeSource).
 */
import type { StatusCause } from '../../errors';
import { forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import { PERSISTENT_VOLUME_SOURCES } from '../../../schema/definitions/core-persistent-volume';
import { arrAt, isObj, setDefault, str } from '../util';
import type { Obj } from '../util';

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** the order in which kube's ValidatePersistentVolumeSpec looks at the sources */
const CHECK_ORDER = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cephfs', 'iscsi',
  'cinder', 'fc', 'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO',
  'local', 'storageos', 'csi',
];

/** the path kube reports a source's own errors under, where it differs from the field name */
const ERROR_PATH: Record<string, string> = { gcePersistentDisk: 'persistentDisk' };
/** the path of the "more than 1 volume type" error, where it differs from the field name */
const EXTRA_PATH: Record<string, string> = { cephfs: 'cephFS' };

/** fields kube requires (non-empty) in each source */
const REQUIRED_FIELDS: Record<string, string[]> = {
  gcePersistentDisk: ['pdName'],
  awsElasticBlockStore: ['volumeID'],
  glusterfs: ['endpoints', 'path'],
  rbd: ['monitors', 'image'],
  quobyte: ['registry', 'volume'],
  cephfs: ['monitors'],
  iscsi: ['targetPortal', 'iqn'],
  cinder: ['volumeID'],
  flexVolume: ['driver'],
  azureFile: ['secretName', 'shareName'],
  vsphereVolume: ['volumePath'],
  photonPersistentDisk: ['pdID'],
  portworxVolume: ['volumeID'],
  azureDisk: ['diskName', 'diskURI'],
  scaleIO: ['gateway', 'system', 'volumeName'],
  csi: ['driver', 'volumeHandle'],
};

const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

function noBacksteps(value: string, field: string): StatusCause[] {
  return value.split('/').includes('..') ? [invalid(field, value, "must not contain '..'")] : [];
}

/** the checks beyond required fields, for the sources kube checks more closely */
function sourceSpecific(name: string, src: Obj, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  switch (name) {
    case 'hostPath': {
      const path = str(src.path);
      if (!path) return [required(`${p}.path`, '')];
      causes.push(...noBacksteps(path, `${p}.path`));
      if (src.type !== undefined && src.type !== null && !HOST_PATH_TYPES.includes(str(src.type))) {
        causes.push(notSupported(`${p}.type`, src.type, HOST_PATH_TYPES));
      }
      break;
    }
    case 'nfs': {
      if (!str(src.server)) causes.push(required(`${p}.server`, ''));
      const path = str(src.path);
      if (!path) causes.push(required(`${p}.path`, ''));
      if (!path.startsWith('/')) causes.push(invalid(`${p}.path`, path, 'must be an absolute path'));
      break;
    }
    case 'local': {
      const path = str(src.path);
      if (!path) return [required(`${p}.path`, '')];
      causes.push(...noBacksteps(path, `${p}.path`));
      break;
    }
    case 'gcePersistentDisk':
    case 'awsElasticBlockStore': {
      const part = src.partition;
      if (typeof part === 'number' && (part < 0 || part > 255)) causes.push(invalid(`${p}.partition`, part, 'must be between 1 and 255, inclusive'));
      break;
    }
    case 'iscsi': {
      const lun = src.lun;
      if (typeof lun === 'number' && (lun < 0 || lun > 255)) causes.push(invalid(`${p}.lun`, lun, 'must be between 0 and 255, inclusive'));
      break;
    }
    case 'fc': {
      const wwns = arrAt(src, 'targetWWNs');
      const wwids = arrAt(src, 'wwids');
      if (wwns.length === 0 && wwids.length === 0) {
        causes.push(required(`${p}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
      } else if (wwns.length > 0 && wwids.length > 0) {
        causes.push(invalid(`${p}.targetWWNs`, wwns, 'targetWWNs and wwids can not be specified simultaneously'));
      } else if (wwns.length > 0 && (src.lun === undefined || src.lun === null)) {
        causes.push(required(`${p}.lun`, 'lun is required if targetWWNs is specified'));
      }
      break;
    }
    case 'flocker': {
      const hasName = !!str(src.datasetName);
      const hasUUID = !!str(src.datasetUUID);
      if (hasName === hasUUID) causes.push(required(p, 'one of datasetName and datasetUUID is required'));
      break;
    }
    case 'csi': {
      const driver = str(src.driver);
      if (driver) {
        if (driver.length > 63) causes.push({ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 63 bytes', field: `${p}.driver` });
        for (const msg of isDNS1123Subdomain(driver.toLowerCase())) causes.push(invalid(`${p}.driver`, driver, msg));
      }
      for (const ref of ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef']) {
        const r = src[ref];
        if (!isObj(r)) continue;
        if (!str(r.name)) causes.push(required(`${p}.${ref}.name`, ''));
        if (!str(r.namespace)) causes.push(required(`${p}.${ref}.namespace`, ''));
      }
      break;
    }
  }
  return causes;
}

/** kube's one-source rule and each source's own checks; `p` is the spec path */
export function validatePersistentVolumeSources(spec: Obj, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const name of CHECK_ORDER) {
    const src = spec[name];
    if (src === undefined || src === null) continue;
    // kube counts a flexVolume without the "more than one" check
    if (count > 0 && name !== 'flexVolume') {
      causes.push(forbidden(`${p}.${EXTRA_PATH[name] ?? name}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const s = isObj(src) ? src : {};
    const sp = `${p}.${ERROR_PATH[name] ?? name}`;
    for (const f of REQUIRED_FIELDS[name] ?? []) if (isEmpty(s[f])) causes.push(required(`${sp}.${f}`, ''));
    causes.push(...sourceSpecific(name, s, sp));
  }
  if (count === 0) causes.push(required(p, 'must specify a volume type'));
  return causes;
}

/** the source fields of a spec, for the immutability check of updates */
export function persistentVolumeSourceOf(spec: Obj): Obj {
  const out: Obj = {};
  for (const name of PERSISTENT_VOLUME_SOURCES) if (spec[name] !== undefined && spec[name] !== null) out[name] = spec[name];
  return out;
}

/** the volume source defaults kube applies to a PersistentVolume */
export function defaultPersistentVolumeSources(spec: Obj): void {
  if (isObj(spec.hostPath)) setDefault(spec.hostPath, 'type', '');
  if (isObj(spec.iscsi) && !spec.iscsi.iscsiInterface) spec.iscsi.iscsiInterface = 'default';
  if (isObj(spec.rbd)) {
    if (!spec.rbd.pool) spec.rbd.pool = 'rbd';
    if (!spec.rbd.user) spec.rbd.user = 'admin';
    if (!spec.rbd.keyring) spec.rbd.keyring = '/etc/ceph/keyring';
  }
  if (isObj(spec.scaleIO)) {
    if (!spec.scaleIO.storageMode) spec.scaleIO.storageMode = 'ThinProvisioned';
    if (!spec.scaleIO.fsType) spec.scaleIO.fsType = 'xfs';
  }
  if (isObj(spec.azureDisk)) {
    setDefault(spec.azureDisk, 'cachingMode', 'ReadWrite');
    setDefault(spec.azureDisk, 'kind', 'Shared');
    setDefault(spec.azureDisk, 'fsType', 'ext4');
    setDefault(spec.azureDisk, 'readOnly', false);
  }
}
