/**
 * Label key and value syntax as the selector parser checks it, with the messages of
 * k8s.io/apimachinery/pkg/util/validation (kube 1.32: IsQualifiedName, IsValidLabelValue).
 * Lengths are in bytes, as Go's len() counts them.
 */

const nameCharFmt = '[A-Za-z0-9]';
const nameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${nameCharFmt}${nameExtCharFmt}*)?${nameCharFmt}`;
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueMaxLength = 63;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainMaxLength = 253;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** kube's RegexError, including its doubled spaces between examples */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** problems with a label key (`[prefix/]name`); empty when valid */
export function labelKeyErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** problems with a label value; empty when valid ('' is a valid value) */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** how Go's field.Invalid renders its bad value: strings quoted, other values as JSON */
export function renderBadValue(value: unknown): string {
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** a field.Error of type Invalid as Go prints it: `<path>: Invalid value: <value>: <detail>` */
export function invalidValue(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${renderBadValue(value)}: ${detail}`;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated inside brackets */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
