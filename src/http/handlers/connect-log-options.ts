/**
 * pods/log's query (kube's PodLogOptions), checked as ValidatePodLogOptions checks it (422 Invalid)
 * and mapped onto the node agent's /containerLogs query as kube's LogLocation maps it: follow,
 * previous and timestamps when true, sinceSeconds or sinceTime (RFC 3339), tailLines, limitBytes.
 */
import { errors, type StatusCause } from '../../api/errors';

export interface LogQuery {
  /** the agent's query */
  params: URLSearchParams;
  /** insecureSkipTLSVerifyBackend: the agent's certificate is not checked for this request */
  insecure: boolean;
}

export function logQuery(q: URLSearchParams, name: string): LogQuery {
  const flag = (k: string): boolean => {
    const v = q.get(k);
    if (v === null || v === '') return false;
    if (['true', '1', 't', 'True', 'TRUE', 'T'].includes(v)) return true;
    if (['false', '0', 'f', 'False', 'FALSE', 'F'].includes(v)) return false;
    throw errors.badRequest(`invalid value for ${k}: ${JSON.stringify(v)}: not a boolean`);
  };
  const int = (k: string): number | undefined => {
    const v = q.get(k);
    if (v === null || v === '') return undefined;
    if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`invalid value for ${k}: ${JSON.stringify(v)}: not an integer`);
    return Number(v);
  };
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  const sinceSeconds = int('sinceSeconds');
  const sinceTimeText = q.get('sinceTime') || undefined;
  let sinceTime: string | undefined;
  if (sinceTimeText !== undefined) {
    const t = Date.parse(sinceTimeText);
    if (!/^\d{4}-\d\d-\d\dT/.test(sinceTimeText) || Number.isNaN(t)) throw errors.badRequest(`invalid value for sinceTime: ${JSON.stringify(sinceTimeText)}: not an RFC 3339 time`);
    // kube formats the time again in RFC 3339 at whole seconds, UTC
    sinceTime = new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }
  const causes: StatusCause[] = [];
  if (tailLines !== undefined && tailLines < 0) causes.push({ reason: 'FieldValueInvalid', field: 'tailLines', message: `Invalid value: ${tailLines}: must be greater than or equal to 0` });
  if (limitBytes !== undefined && limitBytes < 1) causes.push({ reason: 'FieldValueInvalid', field: 'limitBytes', message: `Invalid value: ${limitBytes}: must be greater than 0` });
  if (sinceSeconds !== undefined && sinceTime !== undefined) causes.push({ reason: 'FieldValueForbidden', field: '', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  if (sinceSeconds !== undefined && sinceSeconds < 1) causes.push({ reason: 'FieldValueInvalid', field: 'sinceSeconds', message: `Invalid value: ${sinceSeconds}: must be greater than 0` });
  if (causes.length > 0) throw errors.invalid('PodLogOptions', '', name, causes);

  // url.Values.Encode sorts by key, so the agent sees kube's order
  const entries: Array<[string, string]> = [];
  if (flag('follow')) entries.push(['follow', 'true']);
  if (flag('previous')) entries.push(['previous', 'true']);
  if (flag('timestamps')) entries.push(['timestamps', 'true']);
  if (sinceSeconds !== undefined) entries.push(['sinceSeconds', String(sinceSeconds)]);
  if (sinceTime !== undefined) entries.push(['sinceTime', sinceTime]);
  if (tailLines !== undefined) entries.push(['tailLines', String(tailLines)]);
  if (limitBytes !== undefined) entries.push(['limitBytes', String(limitBytes)]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { params: new URLSearchParams(entries), insecure: flag('insecureSkipTLSVerifyBackend') };
}
