/**
 * apiregistration.k8s.io APIService, served as v1 and v1beta1 over one storage location (stored as
 * v1; the versions have the same fields). kube's apiServerStrategy: a new object's status is reset,
 * and a local one (no service) is Available at once; updates need a resourceVersion; the table is
 * kube-aggregator's NAME / SERVICE / AVAILABLE / AGE.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { localAvailableCondition } from './conditions';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { clone, isObj, objAt, str } from '../util';
import { validateAPIService, validateAPIServiceStatus } from './apiservice-validation';

/** kube's SetDefaults_ServiceReference: the port defaults to 443 */
function defaults(obj: KubeObject): void {
  const service = objAt(objAt(obj, 'spec'), 'service');
  if (service && (service.port === undefined || service.port === null)) service.port = 443;
}

function prepareForCreate(obj: KubeObject): void {
  const service = objAt(obj, 'spec')?.service;
  // kube marks a local registration available on create; a remote one waits for the availability check
  obj.status = service === undefined || service === null ? { conditions: [localAvailableCondition()] } : {};
}

/** kube's AVAILABLE cell: `True`, `False (Reason)`, or `Unknown` without an Available condition */
export function availableCell(obj: KubeObject): string {
  const conditions = objAt(obj, 'status')?.conditions;
  const available = Array.isArray(conditions) ? conditions.find((c) => isObj(c) && c.type === 'Available') : undefined;
  if (!isObj(available)) return 'Unknown';
  const status = str(available.status);
  if (status === 'True' || !available.reason) return status;
  return `${status} (${str(available.reason)})`;
}

function serviceCell(obj: KubeObject): string {
  const service = objAt(objAt(obj, 'spec'), 'service');
  return service ? `${str(service.namespace)}/${str(service.name)}` : 'Local';
}

function withApiVersion(obj: KubeObject, apiVersion: string): KubeObject {
  const out = clone(obj);
  out.apiVersion = apiVersion;
  return out;
}

export function apiServiceKind(version: 'v1' | 'v1beta1'): KindDefinition {
  const apiVersion = `apiregistration.k8s.io/${version}`;
  const def: KindDefinition & { allowUnconditionalUpdate: boolean } = {
    group: 'apiregistration.k8s.io',
    version,
    kind: 'APIService',
    listKind: 'APIServiceList',
    resource: 'apiservices',
    singular: 'apiservice',
    namespaced: false,
    nameValidation: 'pathSegment',
    shortNames: [],
    categories: ['api-extensions'],
    storage: { group: 'apiregistration.k8s.io', resource: 'apiservices' },
    storageVersion: 'v1',
    fromStorage: (obj) => withApiVersion(obj, apiVersion),
    toStorage: (obj) => withApiVersion(obj, 'apiregistration.k8s.io/v1'),
    schemaName: `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}.APIService`,
    tracksGeneration: false,
    statusSubresource: true,
    // kube's apiServerStrategy.AllowUnconditionalUpdate is false: a PUT must carry a resourceVersion
    allowUnconditionalUpdate: false,
    strategy: {
      defaults,
      prepareForCreate,
      validate: (obj) => validateAPIService(obj),
      validateStatus: (obj) => validateAPIServiceStatus(obj),
    },
    table: {
      columns: [
        nameColumn(),
        column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
        column('Available', 'string', 'Whether this service is available.'),
        ageColumn(),
      ],
      cells: (obj, now) => [str(obj.metadata?.name), serviceCell(obj), availableCell(obj), age(obj, now)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
  return def;
}
