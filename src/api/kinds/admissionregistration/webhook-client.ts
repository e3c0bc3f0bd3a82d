/**
 * kube's checks of where a webhook is called (k8s.io/apiserver/pkg/util/webhook validation):
 * exactly one of url and service; a url must be https with a host and no user, query or fragment;
 * a service needs a name and namespace, a valid port, and a path of DNS-1123 subdomain segments.
 */
import type { StatusCause } from '../../errors';
import { invalid, required } from '../../validation/field-errors';
import { isDNS1123Subdomain, isValidPortNum } from '../../validation/names';
import { isObj, num, str } from '../util';

const FORM = '; desired format: https://host[/path]';

export function validateWebhookURL(value: string, field: string): StatusCause[] {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    // Go's url.Parse accepts nearly anything; what WHATWG URL refuses has no host, or no scheme
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value)?.[1] ?? '';
    const causes: StatusCause[] = [];
    if (scheme !== 'https') causes.push(invalid(field, scheme, `'https' is the only allowed URL scheme${FORM}`));
    causes.push(invalid(field, '', `host must be specified${FORM}`));
    return causes;
  }
  const causes: StatusCause[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') causes.push(invalid(field, scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host === '') causes.push(invalid(field, u.host, `host must be specified${FORM}`));
  if (u.username !== '' || u.password !== '') {
    const user = u.password !== '' ? `${u.username}:${u.password}` : u.username;
    causes.push(invalid(field, decodeURIComponent(user), 'user information is not permitted in the URL'));
  }
  if (u.hash !== '') causes.push(invalid(field, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search !== '') causes.push(invalid(field, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return causes;
}

export function validateWebhookService(service: Record<string, unknown>, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (str(service.name) === '') causes.push(required(`${field}.name`, 'service name is required'));
  if (str(service.namespace) === '') causes.push(required(`${field}.namespace`, 'service namespace is required'));
  const port = num(service.port) ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) causes.push(invalid(`${field}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (typeof service.path !== 'string') return causes;
  const path = service.path;
  if (path === '/' || path === '') return causes;
  if (path === '//') return [...causes, invalid(`${field}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) causes.push(invalid(`${field}.path`, path, "must start with a '/'"));
  let rest = path.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') {
      causes.push(invalid(`${field}.path`, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const msg of isDNS1123Subdomain(step)) causes.push(invalid(`${field}.path`, path, `segment[${i}]: ${msg}`));
  });
  return causes;
}

/** the clientConfig of a webhook at `field` (`webhooks[0].clientConfig`) */
export function validateClientConfig(cc: unknown, field: string): StatusCause[] {
  const config = isObj(cc) ? cc : {};
  const hasURL = typeof config.url === 'string';
  const hasService = isObj(config.service);
  if (hasURL === hasService) return [required(field, 'exactly one of url or service is required')];
  if (hasURL) return validateWebhookURL(config.url as string, `${field}.url`);
  return validateWebhookService(config.service as Record<string, unknown>, `${field}.service`);
}
