/**
 * VolumeAttachment, cluster-scoped, served as storage.k8s.io/v1, v1beta1 and v1alpha1 and stored as
 * v1, with kube 1.20's per-version rules: only v1 has the status subresource; v1beta1 lets the
 * main resource write status (its clients did so before /status existed); v1 and v1alpha1 keep
 * the status of the main resource as it was and also check the attacher as a CSI driver name and
 * persistentVolumeName as an object name. The spec is immutable.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { forbidden, invalid, required } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import { sameFieldsConversion } from '../same-fields-conversion';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { clone, isObj, objAt, str, stringMap } from '../util';
import { validateCsiDriverName } from './csi-driver-name';

const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;

function tooLongField(field: string, max: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${max} bytes`, field };
}

/** kube's validation of an inline volume (ValidatePersistentVolumeSpec for inline specs, in part) */
function validateInlineSpec(spec: Record<string, unknown>, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) causes.push(required(`${p}.accessModes`, ''));
  if (spec.claimRef !== undefined && spec.claimRef !== null) causes.push(forbidden(`${p}.claimRef`, 'may not be specified in the context of inline volumes'));
  if (isObj(spec.capacity) && Object.keys(spec.capacity).length > 0) causes.push(forbidden(`${p}.capacity`, 'may not be specified in the context of inline volumes'));
  if (!isObj(spec.csi)) causes.push(required(`${p}.csi`, 'has to be specified in the context of inline volumes'));
  return causes;
}

function validateSource(source: Record<string, unknown>): StatusCause[] {
  const p = 'spec.source';
  const inline = objAt(source, 'inlineVolumeSpec');
  const pv = source.persistentVolumeName;
  const hasPV = pv !== undefined && pv !== null;
  if (!inline && !hasPV) return [required(p, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName')];
  if (inline && hasPV) return [forbidden(p, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName')];
  if (hasPV) return str(pv) === '' ? [required(`${p}.persistentVolumeName`, 'must specify non empty persistentVolumeName')] : [];
  return validateInlineSpec(inline!, `${p}.inlineVolumeSpec`);
}

function validateVolumeError(e: unknown, p: string): StatusCause[] {
  if (!isObj(e) || typeof e.message !== 'string' || e.message.length <= MAX_ERROR_MESSAGE) return [];
  // kube checks the 1024-character limit but reports the metadata size limit
  return [tooLongField(`${p}.message`, MAX_METADATA_SIZE)];
}

/** kube's ValidateVolumeAttachment, plus ValidateVolumeAttachmentV1 when `strict` */
function validateAttachment(obj: KubeObject, strict: boolean): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const attacher = str(spec.attacher);
  if (attacher === '') causes.push(required('spec.attacher', ''));
  causes.push(...validateSource(objAt(spec, 'source') ?? {}));
  const node = str(spec.nodeName);
  for (const msg of isDNS1123Subdomain(node)) causes.push(invalid('spec.nodeName', node, msg));
  const status = objAt(obj, 'status') ?? {};
  const metadata = stringMap(status.attachmentMetadata);
  const size = Object.entries(metadata).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > MAX_METADATA_SIZE) causes.push(tooLongField('status.attachmentMetadata', MAX_METADATA_SIZE));
  causes.push(...validateVolumeError(status.attachError, 'status.attachError'), ...validateVolumeError(status.detachError, 'status.detachError'));
  if (strict) {
    causes.push(...validateCsiDriverName(attacher, 'spec.attacher'));
    const pv = objAt(spec, 'source')?.persistentVolumeName;
    if (typeof pv === 'string') for (const msg of isDNS1123Subdomain(pv)) causes.push(invalid('spec.source.persistentVolumeName', pv, msg));
  }
  return causes;
}

function validateUpdate(obj: KubeObject, old: KubeObject, strict: boolean): StatusCause[] {
  const causes = validateAttachment(obj, strict);
  if (!jsonEqual(obj.spec, old.spec)) causes.push(invalid('spec', obj.spec, 'field is immutable'));
  return causes;
}

export function volumeAttachmentKind(version: 'v1' | 'v1beta1' | 'v1alpha1'): KindDefinition {
  const v1beta1 = version === 'v1beta1';
  return {
    group: 'storage.k8s.io',
    version,
    kind: 'VolumeAttachment',
    listKind: 'VolumeAttachmentList',
    resource: 'volumeattachments',
    singular: 'volumeattachment',
    namespaced: false,
    shortNames: [],
    categories: [],
    storage: { group: 'storage.k8s.io', resource: 'volumeattachments' },
    storageVersion: 'v1',
    ...sameFieldsConversion(`storage.k8s.io/${version}`, 'storage.k8s.io/v1'),
    schemaName: `io.k8s.api.storage.${version}.VolumeAttachment`,
    tracksGeneration: false,
    statusSubresource: version === 'v1',
    strategy: {
      defaults() {},
      prepareForCreate(obj) {
        if (!v1beta1) obj.status = { attached: false };
      },
      prepareForUpdate(obj, old) {
        // v1 keeps the status already (status subresource); v1alpha1 may not write it either
        if (version === 'v1alpha1') {
          if (old.status === undefined) delete obj.status;
          else obj.status = clone(old.status);
        }
      },
      validate: (obj, old) => (old ? validateUpdate(obj, old, !v1beta1) : validateAttachment(obj, !v1beta1)),
      validateStatus: (obj, old) => validateUpdate(obj, old, !v1beta1),
    },
    table: {
      columns: [
        nameColumn(),
        // kube marks this column as a name too
        { ...column('Attacher', 'string', 'Name of the volume driver that attaches the volume.'), format: 'name' },
        column('PV', 'string', 'Name of the persistent volume attached.'),
        column('Node', 'string', 'Node the volume is attached to.'),
        column('Attached', 'boolean', 'Whether the volume is attached.'),
        ageColumn(),
      ],
      cells: (obj, now) => {
        const spec = objAt(obj, 'spec');
        const pv = objAt(spec, 'source')?.persistentVolumeName;
        return [str(obj.metadata?.name), str(spec?.attacher), typeof pv === 'string' ? pv : '', str(spec?.nodeName), objAt(obj, 'status')?.attached === true, age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
