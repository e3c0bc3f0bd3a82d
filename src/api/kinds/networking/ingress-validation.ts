/**
 * kube 1.20's Ingress validation (pkg/apis/networking/validation), run on the v1 form of the object
 * whatever version the request used. Like kube, the field names in the causes follow the request's
 * version for the fields that differ (`backend` / `serviceName` / `servicePort` in the beta
 * versions), and the beta versions tolerate invalid TLS secret names and invalid rules under
 * wildcard hosts; v1 tolerates them only where the stored object already had them.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortName, isValidPortNum, validatePathSegmentName } from '../../validation/names';
import { arrAt, isObj, objAt, str, type Obj } from '../util';
import { isWildcardDNS1123Subdomain } from './formats';
import { parseIP } from './ip';

export interface IngressValidationOptions {
  /** the request used networking.k8s.io/v1beta1 or extensions/v1beta1 */
  beta: boolean;
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_SUFFIXES = ['/..', '/.'];
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** kube's validateIngressTypedLocalObjectReference (resource backends) */
function validateResourceRef(ref: Obj, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof ref.apiGroup === 'string') for (const msg of isDNS1123Subdomain(ref.apiGroup)) causes.push(invalid(`${p}.apiGroup`, ref.apiGroup, msg));
  for (const key of ['kind', 'name']) {
    const v = str(ref[key]);
    if (v === '') causes.push(required(`${p}.${key}`, `${key} is required`));
    else for (const msg of validatePathSegmentName(v, false)) causes.push(invalid(`${p}.${key}`, v, msg));
  }
  return causes;
}

function validateBackend(backend: Obj, p: string, opts: IngressValidationOptions): StatusCause[] {
  const resource = objAt(backend, 'resource');
  const service = objAt(backend, 'service');
  if (resource && service) return [invalid(p, '', 'cannot set both resource and service backends')];
  if (resource) return validateResourceRef(resource, `${p}.resource`);
  if (!service) return [invalid(p, '', 'resource or service backend is required')];
  const causes: StatusCause[] = [];
  const namePath = opts.beta ? `${p}.serviceName` : `${p}.service.name`;
  const name = str(service.name);
  if (name === '') causes.push(required(namePath, ''));
  else for (const msg of isDNS1035Label(name)) causes.push(invalid(namePath, name, msg));
  const port = objAt(service, 'port') ?? {};
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName !== '' && portNumber !== 0) causes.push(invalid(p, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const msg of isValidPortName(portName)) causes.push(invalid(opts.beta ? `${p}.servicePort` : `${p}.service.port.name`, portName, msg));
  else if (portNumber !== 0) for (const msg of isValidPortNum(portNumber)) causes.push(invalid(opts.beta ? `${p}.servicePort` : `${p}.service.port.number`, portNumber, msg));
  else causes.push(required(p, 'port name or number is required'));
  return causes;
}

function validatePath(path: Obj, p: string, opts: IngressValidationOptions): StatusCause[] {
  if (path.pathType === undefined || path.pathType === null) return [required(`${p}.pathType`, 'pathType must be specified')];
  const causes: StatusCause[] = [];
  const text = str(path.path);
  switch (path.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!text.startsWith('/')) causes.push(invalid(`${p}.path`, text, 'must be an absolute path'));
      for (const seq of INVALID_SEQUENCES) if (text.includes(seq)) causes.push(invalid(`${p}.path`, text, `must not contain '${seq}'`));
      for (const suffix of INVALID_SUFFIXES) if (text.endsWith(suffix)) causes.push(invalid(`${p}.path`, text, `cannot end with '${suffix}'`));
      break;
    case 'ImplementationSpecific':
      if (text !== '' && !text.startsWith('/')) causes.push(invalid(`${p}.path`, text, 'must be an absolute path'));
      break;
    default:
      causes.push(notSupported(`${p}.pathType`, path.pathType, PATH_TYPES));
  }
  causes.push(...validateBackend(objAt(path, 'backend') ?? {}, `${p}.backend`, opts));
  return causes;
}

/** kube's validateIngressRuleValue: the HTTP paths of one rule */
function validateRuleValue(rule: Obj, p: string, opts: IngressValidationOptions): StatusCause[] {
  const http = objAt(rule, 'http');
  if (!http) return [];
  const paths = arrAt(http, 'paths');
  const causes: StatusCause[] = paths.length === 0 ? [required(`${p}.http.paths`, '')] : [];
  paths.forEach((path, i) => causes.push(...validatePath(isObj(path) ? path : {}, `${p}.http.paths[${i}]`, opts)));
  return causes;
}

function validateRules(rules: unknown[], opts: IngressValidationOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  rules.forEach((r, i) => {
    const rule = isObj(r) ? r : {};
    const p = `spec.rules[${i}]`;
    const host = str(rule.host);
    let wildcard = false;
    if (host !== '') {
      if (parseIP(host)) causes.push(invalid(`${p}.host`, host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        for (const msg of isWildcardDNS1123Subdomain(host)) causes.push(invalid(`${p}.host`, host, msg));
        wildcard = true;
      } else {
        for (const msg of isDNS1123Subdomain(host)) causes.push(invalid(`${p}.host`, host, msg));
      }
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) causes.push(...validateRuleValue(rule, p, opts));
  });
  return causes;
}

function validateTLS(tls: unknown[], opts: IngressValidationOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  tls.forEach((t, i) => {
    const entry = isObj(t) ? t : {};
    arrAt(entry, 'hosts').forEach((h, j) => {
      const host = str(h);
      const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const msg of msgs) causes.push(invalid(`spec.tls[${i}].hosts[${j}]`, host, msg));
    });
    const secret = str(entry.secretName);
    if (!opts.allowInvalidSecretName && secret !== '') {
      for (const msg of isDNS1123Subdomain(secret)) causes.push(invalid(`spec.tls[${i}].secretName`, secret, msg));
    }
  });
  return causes;
}

/** kube's ValidateIngressSpec on a v1-form spec */
export function validateIngressSpec(spec: Obj, opts: IngressValidationOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const rules = arrAt(spec, 'rules');
  const backendField = opts.beta ? 'backend' : 'defaultBackend';
  const defaultBackend = objAt(spec, 'defaultBackend');
  if (rules.length === 0 && !defaultBackend) {
    // kube prints the Go value of the empty rules
    const shown = Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)';
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: either \`${backendField}\` or \`rules\` must be specified`, field: 'spec' });
  }
  if (defaultBackend) causes.push(...validateBackend(defaultBackend, `spec.${backendField}`, opts));
  if (rules.length) causes.push(...validateRules(rules, opts));
  causes.push(...validateTLS(arrAt(spec, 'tls'), opts));
  if (typeof spec.ingressClassName === 'string') {
    for (const msg of isDNS1123Subdomain(spec.ingressClassName)) causes.push(invalid('spec.ingressClassName', spec.ingressClassName, msg));
  }
  return causes;
}

/** the options of a write in `beta` or v1 over `old` (v1 form; undefined on create), as kube derives them */
export function ingressValidationOptions(beta: boolean, old: KubeObject | undefined): IngressValidationOptions {
  const oldSpec = objAt(old, 'spec');
  const invalidSecret = arrAt(oldSpec, 'tls').some((t) => {
    const secret = isObj(t) ? str(t.secretName) : '';
    return secret !== '' && isDNS1123Subdomain(secret).length > 0;
  });
  const strict = { beta: false, allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };
  const invalidWildcardRule = arrAt(oldSpec, 'rules').some((r) => isObj(r) && str(r.host).includes('*') && validateRuleValue(r, '', strict).length > 0);
  return {
    beta,
    allowInvalidSecretName: beta || invalidSecret,
    allowInvalidWildcardHostRule: beta || invalidWildcardRule,
  };
}

/** kube 1.20's ValidateIngressCreate/Update on v1 forms */
export function validateIngress(obj: KubeObject, old: KubeObject | undefined, beta: boolean): StatusCause[] {
  const causes = validateIngressSpec(objAt(obj, 'spec') ?? {}, ingressValidationOptions(beta, old));
  const annotations = obj.metadata?.annotations;
  const spec = objAt(obj, 'spec');
  // 1.20: the class annotation and the class field may not both be set on a new Ingress
  if (!old && isObj(annotations) && CLASS_ANNOTATION in annotations && typeof spec?.ingressClassName === 'string') {
    causes.push(invalid(`annotations.${CLASS_ANNOTATION}`, annotations[CLASS_ANNOTATION], 'can not be set when the class field is also set'));
  }
  return causes;
}

/** kube 1.20's ValidateIngressStatusUpdate: the load balancer ingress points */
export function validateIngressStatus(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  arrAt(objAt(objAt(obj, 'status'), 'loadBalancer'), 'ingress').forEach((e, i) => {
    const entry = isObj(e) ? e : {};
    const p = `status.loadBalancer.ingress[${i}]`;
    const ip = str(entry.ip);
    if (ip !== '' && !parseIP(ip)) causes.push(invalid(`${p}.ip`, ip, 'must be a valid IP address'));
    const hostname = str(entry.hostname);
    if (hostname !== '') {
      for (const msg of isDNS1123Subdomain(hostname)) causes.push(invalid(`${p}.hostname`, hostname, msg));
      if (parseIP(hostname)) causes.push(invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return causes;
}
