/**
 * CSIDriver, cluster-scoped, served as storage.k8s.io/v1 and v1beta1 and stored as v1. kube's
 * defaults (attachRequired true; podInfoOnMount, storageCapacity, requiresRepublish and
 * seLinuxMount false; fsGroupPolicy ReadWriteOnceWithFSType; volumeLifecycleModes [Persistent])
 * and 1.20's validation: the name is a CSI driver name (checked at `name`, as kube does), token
 * requests have distinct audiences and 10 minutes to 2^32 seconds, known modes and policies, and
 * the whole spec is immutable (later releases relaxed that for a few fields).
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { duplicate, invalid, notSupported, required } from '../../validation/field-errors';
import { sameFieldsConversion } from '../same-fields-conversion';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, ensureObj, isObj, objAt, setDefault, str } from '../util';
import { validateCsiDriverName } from './csi-driver-name';

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefault(spec, 'attachRequired', true);
  setDefault(spec, 'podInfoOnMount', false);
  setDefault(spec, 'storageCapacity', false);
  setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (arrAt(spec, 'volumeLifecycleModes').length === 0) spec.volumeLifecycleModes = ['Persistent'];
  setDefault(spec, 'requiresRepublish', false);
  setDefault(spec, 'seLinuxMount', false);
}

function validateTokenRequests(requests: unknown[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const audiences = new Set<string>();
  requests.forEach((raw, i) => {
    const r = isObj(raw) ? raw : {};
    const p = `spec.tokenRequests[${i}]`;
    const audience = str(r.audience);
    if (audiences.has(audience)) {
      causes.push(duplicate(`${p}.audience`, audience));
      return;
    }
    audiences.add(audience);
    if (typeof r.expirationSeconds !== 'number') return;
    if (r.expirationSeconds < MIN_TOKEN_SECONDS) causes.push(invalid(`${p}.expirationSeconds`, r.expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (r.expirationSeconds > MAX_TOKEN_SECONDS) causes.push(invalid(`${p}.expirationSeconds`, r.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = validateCsiDriverName(str(obj.metadata?.name), 'name');
  const spec = objAt(obj, 'spec') ?? {};
  // kube's path for attachRequired really is "attachedRequired"
  for (const [key, path] of [['attachRequired', 'attachedRequired'], ['podInfoOnMount', 'podInfoOnMount'], ['storageCapacity', 'storageCapacity']]) {
    if (spec[key] === undefined || spec[key] === null) causes.push(required(`spec.${path}`, ''));
  }
  if (spec.fsGroupPolicy !== undefined && spec.fsGroupPolicy !== null && !FS_GROUP_POLICIES.includes(str(spec.fsGroupPolicy))) {
    causes.push(notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  causes.push(...validateTokenRequests(arrAt(spec, 'tokenRequests')));
  for (const mode of arrAt(spec, 'volumeLifecycleModes')) {
    if (!MODES.includes(str(mode))) causes.push(notSupported('spec.volumeLifecycleModes', mode, MODES));
  }
  if (old && !jsonEqual(obj.spec, old.spec)) causes.push(invalid('spec', obj.spec, 'field is immutable'));
  return causes;
}

function cells(obj: KubeObject, now: Date): unknown[] {
  const spec = objAt(obj, 'spec') ?? {};
  const requests = spec.tokenRequests;
  const tokenRequests = Array.isArray(requests) ? requests.map((r) => (isObj(r) ? str(r.audience) : '')).join(',') : '<unset>';
  const modes = arrAt(spec, 'volumeLifecycleModes').map(str).join(',') || '<none>';
  return [
    str(obj.metadata?.name),
    spec.attachRequired !== false,
    spec.podInfoOnMount === true,
    spec.storageCapacity === true,
    tokenRequests,
    spec.requiresRepublish === true,
    modes,
    age(obj, now),
  ];
}

export function csiDriverKind(version: 'v1' | 'v1beta1'): KindDefinition {
  return {
    group: 'storage.k8s.io',
    version,
    kind: 'CSIDriver',
    listKind: 'CSIDriverList',
    resource: 'csidrivers',
    singular: 'csidriver',
    namespaced: false,
    // kube checks the name as a driver name in validation; its generic check is the path segment one
    nameValidation: 'pathSegment',
    shortNames: [],
    categories: [],
    storage: { group: 'storage.k8s.io', resource: 'csidrivers' },
    storageVersion: 'v1',
    ...sameFieldsConversion(`storage.k8s.io/${version}`, 'storage.k8s.io/v1'),
    schemaName: `io.k8s.api.storage.${version}.CSIDriver`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults, validate },
    table: {
      columns: [
        nameColumn(),
        column('AttachRequired', 'boolean', 'Whether the driver needs an attach step.'),
        column('PodInfoOnMount', 'boolean', 'Whether pod information is passed on mount.'),
        column('StorageCapacity', 'boolean', 'Whether the scheduler uses the storage capacity of the driver.'),
        column('TokenRequests', 'string', 'Audiences of the service account tokens passed on mount.'),
        column('RequiresRepublish', 'boolean', 'Whether volumes are published again periodically.'),
        column('Modes', 'string', 'Volume lifecycle modes the driver supports.'),
        ageColumn(),
      ],
      cells,
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
