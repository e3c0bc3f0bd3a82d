/**
 * Ingress, served as networking.k8s.io/v1, networking.k8s.io/v1beta1 and extensions/v1beta1 over
 * one storage location (networking.k8s.io/ingresses, stored as v1, as kube's cohabitating
 * resources do). The beta versions default a path's pathType to ImplementationSpecific; v1
 * requires it. Validation and the table work on the v1 form (ingress-validation.ts).
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, objAt, setDefault, str } from '../util';
import { ingressBetaToV1, ingressV1ToBeta } from './ingress-conversion';
import { validateIngress, validateIngressStatus } from './ingress-validation';

export type IngressApiVersion = 'networking.k8s.io/v1' | 'networking.k8s.io/v1beta1' | 'extensions/v1beta1';

/** kube's SetDefaults_HTTPIngressPath of the beta versions */
function betaDefaults(obj: KubeObject): void {
  for (const rule of arrAt(objAt(obj, 'spec'), 'rules')) {
    for (const path of arrAt(objAt(rule, 'http'), 'paths')) {
      if (isObj(path)) setDefault(path, 'pathType', 'ImplementationSpecific');
    }
  }
}

/** kube's formatHosts: up to three hosts, `*` for none */
function formatHosts(rules: unknown[]): string {
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    const host = isObj(rule) ? str(rule.host) : '';
    if (!more && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

/** kube's ingressLoadBalancerStatusStringer (server tables are wide: no truncation) */
function formatAddress(status: unknown): string {
  const addresses = new Set<string>();
  for (const e of arrAt(objAt(status, 'loadBalancer'), 'ingress')) {
    if (!isObj(e)) continue;
    const a = str(e.ip) || str(e.hostname);
    if (a) addresses.add(a);
  }
  return [...addresses].sort().join(',');
}

function ingressCells(v1: KubeObject, now: Date): unknown[] {
  const spec = objAt(v1, 'spec') ?? {};
  const className = typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>';
  const ports = arrAt(spec, 'tls').length > 0 ? '80, 443' : '80';
  return [str(v1.metadata?.name), className, formatHosts(arrAt(spec, 'rules')), formatAddress(v1.status), ports, age(v1, now)];
}

export function ingressKind(apiVersion: IngressApiVersion): KindDefinition {
  const [group, version] = apiVersion.split('/') as [string, string];
  const beta = version === 'v1beta1';
  const toV1 = (obj: KubeObject): KubeObject => (beta ? ingressBetaToV1(obj) : obj);
  return {
    group,
    version,
    kind: 'Ingress',
    listKind: 'IngressList',
    resource: 'ingresses',
    singular: 'ingress',
    namespaced: true,
    shortNames: ['ing'],
    categories: [],
    storage: { group: 'networking.k8s.io', resource: 'ingresses' },
    storageVersion: 'v1',
    ...(beta ? { fromStorage: (obj: KubeObject) => ingressV1ToBeta(obj, apiVersion), toStorage: ingressBetaToV1 } : {}),
    schemaName: `io.k8s.api.${group === 'extensions' ? 'extensions' : 'networking'}.${version}.Ingress`,
    tracksGeneration: true,
    statusSubresource: true,
    strategy: {
      defaults: beta ? betaDefaults : () => {},
      prepareForCreate(obj) {
        obj.status = { loadBalancer: {} };
      },
      validate: (obj, old) => validateIngress(toV1(obj), old ? toV1(old) : undefined, beta),
      validateStatus: (obj) => validateIngressStatus(obj),
    },
    table: {
      columns: [
        nameColumn(),
        column('Class', 'string', 'The IngressClass whose controller implements this Ingress.'),
        column('Hosts', 'string', 'Hosts the rules match requests against.'),
        column('Address', 'string', 'Ingress points of the load balancer.'),
        column('Ports', 'string', 'Ports opened for the TLS settings.'),
        ageColumn(),
      ],
      cells: (obj, now) => ingressCells(toV1(obj), now),
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
