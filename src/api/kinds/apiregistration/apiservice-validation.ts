/**
 * kube's ValidateAPIService and ValidateAPIServiceStatus (kube-aggregator's apiregistration
 * validation): the name is `<version>.<group>`, priorities in range, and a local registration (no
 * service) carries no TLS settings.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, validatePathSegmentName } from '../../validation/names';
import { isObj, objAt, str } from '../util';

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** the number of bytes a base64 caBundle decodes to (kube counts the bytes of the []byte) */
function bundleLength(caBundle: unknown): number {
  return typeof caBundle === 'string' ? Buffer.from(caBundle, 'base64').length : 0;
}

function intOf(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

export function validateAPIService(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const group = str(spec.group);
  const version = str(spec.version);
  const causes: StatusCause[] = [];

  // the name function: a path segment (checked by the registry), then exactly version.group
  const name = obj.metadata?.name;
  const requiredName = `${version}.${group}`;
  if (typeof name === 'string' && name !== '' && validatePathSegmentName(name, false).length === 0 && name !== requiredName) {
    causes.push(invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }

  if (group === '' && version !== 'v1') causes.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) causes.push(invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) causes.push(invalid('spec.version', version, msg));

  const groupPriority = intOf(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000) {
    causes.push(invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  }
  const versionPriority = intOf(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000) {
    causes.push(invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  }

  const insecure = spec.insecureSkipTLSVerify === true;
  const bundle = bundleLength(spec.caBundle);
  const service = objAt(spec, 'service');
  if (!service) {
    if (bundle !== 0) causes.push(invalid('spec.caBundle', `${bundle} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) causes.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return causes;
  }
  if (!str(service.namespace)) causes.push(required('spec.service.namespace', ''));
  if (!str(service.name)) causes.push(required('spec.service.name', ''));
  const port = intOf(service.port);
  const portErrors = isValidPortNum(port);
  if (portErrors.length) causes.push(invalid('spec.service.port', port, `port is not valid: ${portErrors.join(', ')}`));
  if (insecure && bundle > 0) causes.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return causes;
}

export function validateAPIServiceStatus(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const conditions = objAt(obj, 'status')?.conditions;
  if (!Array.isArray(conditions)) return causes;
  conditions.forEach((c, i) => {
    const status = isObj(c) ? c.status : undefined;
    if (!CONDITION_STATUSES.includes(str(status))) causes.push(notSupported(`status.conditions[${i}].status`, status ?? '', CONDITION_STATUSES));
  });
  return causes;
}
