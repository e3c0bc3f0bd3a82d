/**
 * The name formats of k8s.io/apimachinery/pkg/util/validation that networking, discovery and
 * storage use beyond the common ones in src/api/validation/names.ts: wildcard DNS subdomains
 * (Ingress hosts), domain-prefixed paths (IngressClass controllers), fully qualified domain names
 * (FQDN EndpointSlices). Messages are kube's.
 */
import type { StatusCause } from '../../errors';
import { invalid, required } from '../../validation/field-errors';
import { DNS1123_SUBDOMAIN_MAX, isDNS1123Label, isDNS1123Subdomain, maxLenError } from '../../validation/names';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const WILDCARD_FMT = `\\*\\.${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const WILDCARD_RE = new RegExp(`^${WILDCARD_FMT}$`);
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** kube's IsWildcardDNS1123Subdomain */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!WILDCARD_RE.test(value)) {
    errs.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character " +
        `(e.g. '*.example.com', regex used for validation is '${WILDCARD_FMT}')`,
    );
  }
  return errs;
}

/** kube's IsDomainPrefixedPath: `example.com/some-path` */
export function validateDomainPrefixedPath(field: string, value: string): StatusCause[] {
  if (value.length === 0) return [required(field, '')];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) {
    return [invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const causes = isDNS1123Subdomain(host).map((msg) => invalid(field, host, msg));
  if (!HTTP_PATH_RE.test(rest)) causes.push(invalid(field, rest, `must be a valid path (regex used for validation is '${HTTP_PATH_FMT}')`));
  return causes;
}

/** kube's IsFullyQualifiedDomainName: a DNS subdomain of at least two labels, a trailing dot allowed */
export function validateFullyQualifiedDomainName(field: string, value: string): StatusCause[] {
  if (value.length === 0) return [required(field, '')];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const subdomain = isDNS1123Subdomain(name);
  if (subdomain.length) return [invalid(field, name, subdomain.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(field, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length) return [invalid(field, label, errs.join(','))];
  }
  return [];
}
