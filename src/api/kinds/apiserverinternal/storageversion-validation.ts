/**
 * kube's StorageVersion validation (pkg/apis/apiserverinternal/validation): the name is
 * `<group>.<resource>`; each server's entry has a DNS-subdomain ID, valid API versions, an encoding
 * version among the decodable ones and served versions among them too; commonEncodingVersion is
 * set exactly when every server encodes the same version; conditions are unique by type and carry
 * a reason and a message.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { duplicate, invalid, required } from '../../validation/field-errors';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../validation/names';
import { arrAt, isObj, objAt, str } from '../util';
import type { Obj } from '../util';

/** kube's ValidateStorageVersionName */
export function storageVersionNameErrors(name: string): string[] {
  const idx = name.lastIndexOf('.');
  if (idx < 0) return ['name must be in the form of <group>.<resource>'];
  return [
    ...isDNS1123Subdomain(name.slice(0, idx)).map((m) => `the group segment ${m}`),
    ...isDNS1035Label(name.slice(idx + 1)).map((m) => `the resource segment ${m}`),
  ];
}

const DNS1035_FORMAT =
  "a DNS-1035 label, which must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** kube's isValidAPIVersion */
function apiVersionErrors(apiVersion: string): string[] {
  const parts = apiVersion.split('/');
  const errs: string[] = [];
  let version: string;
  if (parts.length === 1) version = parts[0];
  else if (parts.length === 2) {
    version = parts[1];
    if (parts[0] === '') errs.push('group part: must be non-empty');
    else errs.push(...isDNS1123Subdomain(parts[0]).map((m) => `group part: ${m}`));
  } else {
    return [`an apiVersion is ${DNS1035_FORMAT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyVersion')`];
  }
  if (version === '') errs.push('version part: must be non-empty');
  else errs.push(...isDNS1035Label(version).map((m) => `version part: ${m}`));
  return errs;
}

function validateServer(sv: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const id = str(sv.apiServerID);
  for (const msg of isDNS1123Subdomain(id)) causes.push(invalid(`${field}.apiServerID`, id, msg));
  const encoding = str(sv.encodingVersion);
  const encodingErrs = apiVersionErrors(encoding);
  if (encodingErrs.length) causes.push(invalid(`${field}.encodingVersion`, encoding, encodingErrs.join(',')));
  const decodable = arrAt(sv, 'decodableVersions').map((v) => str(v));
  decodable.forEach((dv, i) => {
    const errs = apiVersionErrors(dv);
    if (errs.length) causes.push(invalid(`${field}.decodableVersions[${i}]`, dv, errs.join(',')));
  });
  if (!decodable.includes(encoding)) {
    causes.push(invalid(`${field}.decodableVersions`, decodable, `decodableVersions must include encodingVersion ${encoding}`));
  }
  arrAt(sv, 'servedVersions').map((v) => str(v)).forEach((served, i) => {
    const errs = apiVersionErrors(served);
    if (errs.length) causes.push(invalid(`${field}.servedVersions[${i}]`, served, errs.join(',')));
    if (!decodable.includes(served)) {
      causes.push(invalid(`${field}.servedVersions[${i}]`, served, `individual served version : ${served} must be included in decodableVersions : [${decodable.join(' ')}]`));
    }
  });
  return causes;
}

function validateCommonVersion(status: Obj): StatusCause[] {
  const encodings = arrAt(status, 'storageVersions').map((s) => str(isObj(s) ? s.encodingVersion : undefined));
  const actual = encodings.length > 0 && encodings.every((e) => e === encodings[0]) ? encodings[0] : undefined;
  const given = typeof status.commonEncodingVersion === 'string' ? status.commonEncodingVersion : undefined;
  const field = 'status.commonEncodingVersion';
  if (actual === undefined && given === undefined) return [];
  if (actual === undefined) {
    return [invalid(field, given, 'should be nil if servers do not agree on the same encoding version, or if there is no server reporting the supported versions yet')];
  }
  if (given === undefined) return [invalid(field, null, `the common encoding version is ${actual}`)];
  return actual === given ? [] : [invalid(field, given, `the actual common encoding version is ${actual}`)];
}

function validateConditions(status: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Map<string, number>();
  // kube's paths omit "conditions" here (fldPath is status): status[i].type
  arrAt(status, 'conditions').forEach((c, i) => {
    const cond = isObj(c) ? c : {};
    const type = str(cond.type);
    const at = `status[${i}]`;
    const first = seen.get(type);
    if (first !== undefined) causes.push(invalid(`${at}.type`, type, `the type of the condition is not unique, it also appears in conditions[${first}]`));
    seen.set(type, i);
    for (const msg of isQualifiedName(type)) causes.push(invalid(`${at}.type`, type, msg));
    const st = str(cond.status);
    for (const msg of isQualifiedName(st)) causes.push(invalid(`${at}.status`, st, msg));
    if (!str(cond.reason)) causes.push(required(`${at}.reason`, 'reason cannot be empty'));
    if (!str(cond.message)) causes.push(required(`${at}.message`, 'message cannot be empty'));
  });
  return causes;
}

/** kube's validateStorageVersionStatus */
export function validateStorageVersionStatus(obj: KubeObject): StatusCause[] {
  const status = objAt(obj, 'status') ?? {};
  const causes: StatusCause[] = [];
  const ids = new Set<string>();
  arrAt(status, 'storageVersions').forEach((s, i) => {
    const sv = isObj(s) ? s : {};
    const id = str(sv.apiServerID);
    if (ids.has(id)) causes.push(duplicate(`status.storageVersions[${i}].apiServerID`, id));
    else ids.add(id);
    causes.push(...validateServer(sv, `status.storageVersions[${i}]`));
  });
  causes.push(...validateCommonVersion(status), ...validateConditions(status));
  return causes;
}
