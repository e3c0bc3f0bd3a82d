/** internal.apiserver.k8s.io/v1alpha1 StorageVersion: which version each API server stores a resource in. */
import type { Definitions } from '../types';
import { addKind, int64, listMap, obj, ref, set, str, time } from '../dsl';

const P = 'io.k8s.api.apiserverinternal.v1alpha1.';

export const apiserverInternalDefinitions: Definitions = {
  // an empty struct: kube's document gives it no properties at all
  [`${P}StorageVersionSpec`]: { description: 'Empty: a StorageVersion has only status.', type: 'object' },
  [`${P}StorageVersionStatus`]: obj('The storage versions reported by the API servers.', {
    commonEncodingVersion: str('The encoding version every server agrees on; unset when they differ.'),
    conditions: listMap(ref(`${P}StorageVersionCondition`), ['type'], 'The latest observations of the storage version.'),
    storageVersions: listMap(ref(`${P}ServerStorageVersion`), ['apiServerID'], 'One entry per API server.'),
  }),
  [`${P}ServerStorageVersion`]: obj('What one API server encodes, decodes and serves.', {
    apiServerID: str('ID of the reporting API server.'),
    decodableVersions: set(str(), 'Versions the server can decode; includes encodingVersion.'),
    encodingVersion: str('Version the server encodes objects in when writing.'),
    servedVersions: set(str(), 'Versions the server serves; each is decodable.'),
  }),
  [`${P}StorageVersionCondition`]: obj(
    'A condition of a StorageVersion.',
    {
      lastTransitionTime: time('When the condition last changed status.'),
      message: str('Human-readable details of the last transition.'),
      observedGeneration: int64('Generation the condition was set for.'),
      reason: str('Machine-readable reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('Type of the condition.'),
    },
    { required: ['type', 'status', 'reason'] },
  ),
};

addKind(
  apiserverInternalDefinitions,
  P,
  { group: 'internal.apiserver.k8s.io', version: 'v1alpha1', kind: 'StorageVersion' },
  'The storage version of one resource, as the API servers report it.',
  {
    spec: ref(`${P}StorageVersionSpec`, 'Empty.'),
    status: ref(`${P}StorageVersionStatus`, 'The reported storage versions.'),
  },
  ['spec', 'status'],
);
