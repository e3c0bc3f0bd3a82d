/**
 * kube's name and label format checks (k8s.io/apimachinery/pkg/util/validation). Each returns the
 * list of problems as kube words them; an empty list means valid.
 */

/** kube's RegexError: the format, examples joined the way kube joins them, and the regex */
function regexError(msg: string, regex: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${regex}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) out += ' or ';
    out += `'${e}', `;
  });
  return `${out}regex used for validation is '${regex}')`;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const DNS1035_LABEL_MAX = 63;
export const LABEL_VALUE_MAX = 63;
export const QUALIFIED_NAME_MAX = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const qualifiedNameCharFmt = '[A-Za-z0-9]';
const qualifiedNameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qualifiedNameCharFmt}${qualifiedNameExtCharFmt}*)?${qualifiedNameCharFmt}`;
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);
const cIdentifierFmt = '[A-Za-z_][A-Za-z0-9_]*';
const cIdentifierRe = new RegExp(`^${cIdentifierFmt}$`);
const percentFmt = '[0-9]+%';
const percentRe = new RegExp(`^${percentFmt}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        dns1123LabelFmt,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFmt,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1035_LABEL_MAX) errs.push(maxLenError(DNS1035_LABEL_MAX));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        dns1035LabelFmt,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** kube's IsQualifiedName: an optional DNS subdomain prefix, '/', and a name part of at most 63 characters */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        'MyName',
        'my.name',
        '123-abc',
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(
      regexError(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        'MyName',
        'my.name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFmt,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** keys of ConfigMap and Secret data */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!configMapKeyRe.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function isCIdentifier(value: string): string[] {
  if (cIdentifierRe.test(value)) return [];
  return [
    regexError(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
      cIdentifierFmt,
      'my_name',
      'MY_NAME',
      'MyName',
    ),
  ];
}

/**
 * environment variable names: kube 1.32 enables RelaxedEnvironmentVariableValidation by default, which
 * accepts any printable ASCII except '='
 */
export function isEnvVarName(value: string): string[] {
  if (value.length > 0 && /^[\x20-\x3c\x3e-\x7e]+$/.test(value)) return [];
  return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
}

const portNameCharsetRe = /^[-a-z0-9]+$/;
const portNameOneLetterRe = /[a-z]/;

/** kube's IsValidPortName (IANA_SVC_NAME) */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!portNameCharsetRe.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!portNameOneLetterRe.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push("must not contain consecutive hyphens (-)");
  if (port.length > 0 && (port[0] === '-' || port[port.length - 1] === '-')) errs.push('must not begin or end with a hyphen (-)');
  return errs;
}

export function isValidPortNum(port: number): string[] {
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return [];
  return ['must be between 1 and 65535, inclusive'];
}

export function isValidPercent(value: string): string[] {
  if (percentRe.test(value)) return [];
  return [regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, '1%', '93%')];
}

/** kube's IsValidIP (IPv4 dotted quad or IPv6) */
export function isValidIP(value: string): string[] {
  const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  if (v4.test(value)) return [];
  if (value.includes(':') && /^[0-9a-fA-F:.]+$/.test(value) && value.split('::').length <= 2) return [];
  return ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

/** the name functions a kind can choose for metadata.name (kube's ValidateNameFunc) */
export type NameValidation = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment';

/**
 * kube's name validation for a name or, with prefix, a generateName: a prefix may end in '-', which
 * kube masks before checking (maskTrailingDash).
 */
export function validateName(kind: NameValidation, value: string, prefix: boolean): string[] {
  let v = value;
  if (prefix && v.length > 1 && v.endsWith('-')) v = v.slice(0, -1) + 'a';
  switch (kind) {
    case 'dns1123Label':
      return isDNS1123Label(v);
    case 'dns1035Label':
      return isDNS1035Label(v);
    case 'pathSegment':
      return validatePathSegmentName(v, prefix);
    default:
      return isDNS1123Subdomain(v);
  }
}

/** kube's path.IsValidPathSegmentName (and prefix variant) */
export function validatePathSegmentName(value: string, prefix: boolean): string[] {
  const errs: string[] = [];
  if (!prefix && (value === '.' || value === '..')) errs.push(`may not be '${value}'`);
  for (const ch of ['/', '%']) if (value.includes(ch)) errs.push(`may not contain '${ch}'`);
  return errs;
}
