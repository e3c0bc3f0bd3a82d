/**
 * internal.apiserver.k8s.io/v1alpha1 StorageVersion (alpha: served only when --runtime-config turns
 * it on): cluster-scoped, an empty spec and a status subresource; creates start with an empty
 * status, as kube's strategy does; kube's table (COMMONENCODINGVERSION, STORAGEVERSIONS as
 * `server=version`, at most three then `+ N more...`).
 */
import type { KindDefinition } from '../../kind';
import { invalid } from '../../validation/field-errors';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, ensureObj, isObj, objAt, str } from '../util';
import { storageVersionNameErrors, validateStorageVersionStatus } from './storageversion-validation';

export function storageVersionKind(): KindDefinition {
  return {
    group: 'internal.apiserver.k8s.io',
    version: 'v1alpha1',
    kind: 'StorageVersion',
    listKind: 'StorageVersionList',
    resource: 'storageversions',
    singular: 'storageversion',
    namespaced: false,
    // the registry's check is the loosest; kube's <group>.<resource> rule is in validate
    nameValidation: 'pathSegment',
    shortNames: [],
    categories: [],
    storage: { group: 'internal.apiserver.k8s.io', resource: 'storageversions' },
    storageVersion: 'v1alpha1',
    schemaName: 'io.k8s.api.apiserverinternal.v1alpha1.StorageVersion',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults(obj) {
        // spec and status have no omitempty: Go always writes them
        ensureObj(obj, 'spec');
        ensureObj(obj, 'status');
      },
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate(obj, old) {
        // kube's ValidateStorageVersionUpdate finds nothing to check (the spec is empty)
        if (old) return [];
        const name = str(obj.metadata?.name);
        const nameCauses = name ? storageVersionNameErrors(name).map((msg) => invalid('metadata.name', name, msg)) : [];
        return [...nameCauses, ...validateStorageVersionStatus(obj)];
      },
      validateStatus: (obj) => validateStorageVersionStatus(obj),
    },
    table: {
      columns: [
        nameColumn(),
        column('CommonEncodingVersion', 'string', 'the encoding version every API server agrees on'),
        column('StorageVersions', 'string', 'the encoding version of each API server'),
        ageColumn(),
      ],
      cells(obj, now) {
        const status = objAt(obj, 'status') ?? {};
        const common = typeof status.commonEncodingVersion === 'string' ? status.commonEncodingVersion : '<unset>';
        const versions = arrAt(status, 'storageVersions').filter(isObj).map((sv) => `${str(sv.apiServerID)}=${str(sv.encodingVersion)}`);
        // kube's listWithMoreString
        const shown = versions.slice(0, 3).join(',');
        const cell = versions.length > 3 ? `${shown} + ${versions.length - 3} more...` : shown || '<unset>';
        return [str(obj.metadata?.name), common, cell, age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
