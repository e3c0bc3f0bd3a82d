/**
 * kube's validation of a CRD's conversion (validateCustomResourceConversion): the strategy, and for
 * Webhook a client config with exactly one of an https URL or a service (webhook.ValidateWebhookURL
 * and ValidateWebhookService) and review versions that include one the server speaks.
 */
import type { StatusCause } from '../errors';
import { forbidden, invalid, notSupported, required } from '../validation/field-errors';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from '../validation';
import type { InternalSpec } from './types';
import { isObject } from './types';
import { child, index } from './schema/field-path';

export const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** kube's validateEnumStrings */
export function enumString(value: unknown, accepted: string[], path: string): StatusCause[] {
  if (value === undefined || value === '') return [required(path, '')];
  return accepted.includes(String(value)) ? [] : [notSupported(path, value, accepted)];
}

/** kube's webhook.ValidateWebhookURL with https required */
function validateWebhookUrl(raw: string, path: string): StatusCause[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(raw);
  } catch (err) {
    return [required(path, `url must be a valid URL: ${(err as Error).message}${form}`)];
  }
  const out: StatusCause[] = [];
  if (u.protocol !== 'https:') out.push(invalid(path, u.protocol.replace(/:$/, ''), `'https' is the only allowed URL scheme${form}`));
  if (!u.host) out.push(invalid(path, u.host, `host must be specified${form}`));
  if (u.username || u.password) out.push(invalid(path, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash) out.push(invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search) out.push(invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return out;
}

/** kube's webhook.ValidateWebhookService */
function validateWebhookService(svc: NonNullable<InternalSpec['conversion']>['webhookClientConfig'], path: string): StatusCause[] {
  const s = isObject(svc) && isObject(svc.service) ? svc.service : {};
  const out: StatusCause[] = [];
  if (!s.name) out.push(required(child(path, 'name'), 'service name is required'));
  if (!s.namespace) out.push(required(child(path, 'namespace'), 'service namespace is required'));
  const port = typeof s.port === 'number' ? s.port : 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) out.push(invalid(child(path, 'port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (s.path === undefined || s.path === null) return out;
  const p = String(s.path);
  if (p === '/' || p === '') return out;
  if (p === '//') return [...out, invalid(child(path, 'path'), p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) out.push(invalid(child(path, 'path'), p, "must start with a '/'"));
  let rest = p.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (!step) {
      out.push(invalid(child(path, 'path'), p, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of isDNS1123Subdomain(step)) out.push(invalid(child(path, 'path'), p, `segment[${i}]: ${f}`));
  });
  return out;
}

export function validateConversion(conv: InternalSpec['conversion'], requireRecognized: boolean, path: string): StatusCause[] {
  if (!isObject(conv)) return [];
  const out = enumString(conv.strategy, ['None', 'Webhook'], child(path, 'strategy'));
  if (conv.strategy === 'Webhook') {
    const cc = conv.webhookClientConfig;
    if (!isObject(cc)) out.push(required(child(path, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined)) out.push(required(child(path, 'webhookClientConfig'), 'exactly one of url or service is required'));
    else if (cc.url !== undefined) out.push(...validateWebhookUrl(String(cc.url), child(child(path, 'webhookClientConfig'), 'url')));
    else out.push(...validateWebhookService(cc, child(child(path, 'webhookClientConfig'), 'service')));
    const versions = conv.conversionReviewVersions;
    const vpath = child(path, 'conversionReviewVersions');
    if (!Array.isArray(versions) || versions.length === 0) out.push(required(vpath, ''));
    else {
      const seen = new Set<string>();
      let accepted = false;
      versions.forEach((v, i) => {
        if (seen.has(v)) {
          out.push(invalid(index(vpath, i), v, 'duplicate version'));
          return;
        }
        seen.add(v);
        for (const e of isDNS1035Label(String(v))) out.push(invalid(index(vpath, i), v, e));
        if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
      });
      if (requireRecognized && !accepted) out.push(invalid(vpath, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
    }
  } else {
    if (conv.webhookClientConfig !== undefined && conv.webhookClientConfig !== null) out.push(forbidden(child(path, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if (Array.isArray(conv.conversionReviewVersions) && conv.conversionReviewVersions.length > 0) {
      out.push(forbidden(child(path, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
    }
  }
  return out;
}
