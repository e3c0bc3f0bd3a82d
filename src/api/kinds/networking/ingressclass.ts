/**
 * IngressClass, cluster-scoped, served as networking.k8s.io/v1 and v1beta1 (same fields) and stored
 * as v1. kube 1.20's validation (controller a domain-prefixed path of at most 250 characters and
 * immutable) plus the namespaced parameters later releases added: `scope` defaults to Cluster,
 * Namespace scope needs a namespace, Cluster scope forbids one.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, immutable, invalid, notSupported, required, tooLong } from '../../validation/field-errors';
import { isDNS1123Label, isDNS1123Subdomain, validatePathSegmentName } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { sameFieldsConversion } from '../same-fields-conversion';
import { objAt, str } from '../util';
import { validateDomainPrefixedPath } from './formats';

const MAX_CONTROLLER = 250;
const SCOPES = ['Cluster', 'Namespace'];

function defaults(obj: KubeObject): void {
  const params = objAt(objAt(obj, 'spec'), 'parameters');
  if (params && (params.scope === undefined || params.scope === null)) params.scope = 'Cluster';
}

function validateParameters(params: Record<string, unknown>): StatusCause[] {
  const p = 'spec.parameters';
  const causes: StatusCause[] = [];
  if (typeof params.apiGroup === 'string') for (const msg of isDNS1123Subdomain(params.apiGroup)) causes.push(invalid(`${p}.apiGroup`, params.apiGroup, msg));
  for (const key of ['kind', 'name']) {
    const v = str(params[key]);
    if (v === '') causes.push(required(`${p}.${key}`, `${key} is required`));
    else for (const msg of validatePathSegmentName(v, false)) causes.push(invalid(`${p}.${key}`, v, msg));
  }
  if (params.scope === undefined || params.scope === null) return [...causes, required(`${p}.scope`, '')];
  const scope = str(params.scope);
  if (!SCOPES.includes(scope)) causes.push(notSupported(`${p}.scope`, scope, SCOPES));
  else if (scope === 'Namespace') {
    if (typeof params.namespace !== 'string') causes.push(required(`${p}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else for (const msg of isDNS1123Label(params.namespace)) causes.push(invalid(`${p}.namespace`, params.namespace, msg));
  } else if (params.namespace !== undefined && params.namespace !== null) {
    causes.push(forbidden(`${p}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  }
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const controller = str(spec.controller);
  const causes: StatusCause[] = old ? immutable('spec.controller', controller, str(objAt(old, 'spec')?.controller)) : [];
  if (controller.length > MAX_CONTROLLER) causes.push(tooLong('spec.controller', MAX_CONTROLLER));
  causes.push(...validateDomainPrefixedPath('spec.controller', controller));
  const params = objAt(spec, 'parameters');
  if (params) causes.push(...validateParameters(params));
  return causes;
}

/** kube's printIngressClass parameters cell: Kind[.group]/name */
function parametersCell(obj: KubeObject): string {
  const params = objAt(objAt(obj, 'spec'), 'parameters');
  if (!params) return '<none>';
  const group = typeof params.apiGroup === 'string' ? `.${params.apiGroup}` : '';
  return `${str(params.kind)}${group}/${str(params.name)}`;
}

export function ingressClassKind(version: 'v1' | 'v1beta1'): KindDefinition {
  const apiVersion = `networking.k8s.io/${version}`;
  return {
    group: 'networking.k8s.io',
    version,
    kind: 'IngressClass',
    listKind: 'IngressClassList',
    resource: 'ingressclasses',
    singular: 'ingressclass',
    namespaced: false,
    shortNames: [],
    categories: [],
    storage: { group: 'networking.k8s.io', resource: 'ingressclasses' },
    storageVersion: 'v1',
    ...sameFieldsConversion(apiVersion, 'networking.k8s.io/v1'),
    schemaName: `io.k8s.api.networking.${version}.IngressClass`,
    tracksGeneration: true,
    statusSubresource: false,
    strategy: { defaults, validate },
    table: {
      columns: [
        nameColumn(),
        column('Controller', 'string', 'The controller that implements the class.'),
        column('Parameters', 'string', 'The object holding further settings of the controller.'),
        ageColumn(),
      ],
      cells: (obj, now) => [str(obj.metadata?.name), str(objAt(obj, 'spec')?.controller), parametersCell(obj), age(obj, now)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
