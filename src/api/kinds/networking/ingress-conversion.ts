/**
 * Ingress between its beta forms (networking.k8s.io/v1beta1, extensions/v1beta1) and v1, as kube's
 * conversion functions do it: `spec.backend` <-> `spec.defaultBackend`, and a backend's
 * `serviceName` + int-or-string `servicePort` <-> `service: {name, port: {name | number}}`
 * (a string port is a port name, a number a port number). `resource` backends, rules, TLS,
 * ingressClassName, pathType and status are the same in every version. Nothing valid is lost
 * either way; like kube, a beta backend without a service shows `servicePort: 0`.
 */
import type { KubeObject } from '../../kind';
import { arrAt, clone, isObj, objAt, type Obj } from '../util';

/** a beta backend (serviceName/servicePort/resource) as v1 (service/resource) */
export function betaBackendToV1(backend: Obj): Obj {
  const out: Obj = {};
  const name = typeof backend.serviceName === 'string' ? backend.serviceName : '';
  const port = backend.servicePort;
  const hasStringPort = typeof port === 'string';
  const hasNumberPort = typeof port === 'number' && port !== 0;
  // kube: any of a service name or a (non-zero or string) port makes a service backend
  if (name !== '' || hasStringPort || hasNumberPort) {
    const portOut: Obj = {};
    if (hasStringPort && port !== '') portOut.name = port;
    if (hasNumberPort) portOut.number = port;
    out.service = { name, port: portOut };
  }
  if (backend.resource !== undefined) out.resource = clone(backend.resource);
  return out;
}

/** a v1 backend as beta */
export function v1BackendToBeta(backend: Obj): Obj {
  const out: Obj = {};
  const service = objAt(backend, 'service');
  if (service) {
    out.serviceName = typeof service.name === 'string' ? service.name : '';
    const port = objAt(service, 'port') ?? {};
    out.servicePort = typeof port.name === 'string' && port.name !== '' ? port.name : typeof port.number === 'number' ? port.number : 0;
  } else {
    // Go's IntOrString is a struct: omitempty keeps its zero value in kube's JSON
    out.servicePort = 0;
  }
  if (backend.resource !== undefined) out.resource = clone(backend.resource);
  return out;
}

function mapBackends(spec: Obj, from: string, to: string, convert: (b: Obj) => Obj): void {
  if (from in spec) {
    const b = spec[from];
    delete spec[from];
    if (isObj(b)) spec[to] = convert(b);
    else if (b !== undefined) spec[to] = b;
  }
  for (const rule of arrAt(spec, 'rules')) {
    for (const p of arrAt(objAt(rule, 'http'), 'paths')) {
      if (isObj(p) && isObj(p.backend)) p.backend = convert(p.backend);
    }
  }
}

/** an Ingress of a beta version as networking.k8s.io/v1 */
export function ingressBetaToV1(obj: KubeObject): KubeObject {
  const out = clone(obj);
  out.apiVersion = 'networking.k8s.io/v1';
  const spec = objAt(out, 'spec');
  if (spec) mapBackends(spec, 'backend', 'defaultBackend', betaBackendToV1);
  return out;
}

/** a networking.k8s.io/v1 Ingress as `apiVersion` (a beta version) */
export function ingressV1ToBeta(obj: KubeObject, apiVersion: string): KubeObject {
  const out = clone(obj);
  out.apiVersion = apiVersion;
  const spec = objAt(out, 'spec');
  if (spec) mapBackends(spec, 'defaultBackend', 'backend', v1BackendToBeta);
  return out;
}

