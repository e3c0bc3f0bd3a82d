/** apps/v1 ControllerRevision: revision >= 0 and immutable data, table with the owning controller */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable } from '../../validation/field-errors';
import { nonNegative } from '../pod-template';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, str } from '../util';

function controllerOf(obj: KubeObject): string {
  const ref = arrAt(obj.metadata, 'ownerReferences').find((r) => isObj(r) && r.controller === true);
  if (!isObj(ref)) return '<none>';
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = str(ref.kind);
  if (!kind) return str(ref.name);
  // kube prints the lower-cased group kind: `statefulset.apps/web`
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${str(ref.name)}`;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = nonNegative(obj.revision, 'revision');
  if (old) causes.push(...immutable('data', obj.data, old.data));
  return causes;
}

export function controllerRevisionKind(): KindDefinition {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'ControllerRevision',
    listKind: 'ControllerRevisionList',
    resource: 'controllerrevisions',
    singular: 'controllerrevision',
    namespaced: true,
    shortNames: [],
    categories: [],
    storage: { group: 'apps', resource: 'controllerrevisions' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.apps.v1.ControllerRevision',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate },
    table: {
      columns: [
        nameColumn(),
        column('Controller', 'string', 'Controller of the object'),
        column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
        ageColumn(),
      ],
      cells(obj, now) {
        return [str(obj.metadata?.name), controllerOf(obj), typeof obj.revision === 'number' ? obj.revision : 0, age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
