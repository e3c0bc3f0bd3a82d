/**
 * The string formats kube checks in custom objects (kube-openapi's strfmt registry, after kube's
 * StripUnsupportedFormatsPostProcess drops every other format). Names are normalized as go-openapi
 * does (`date-time` is `datetime`). The checks follow the Go parsers' grammar closely enough for
 * what clients send; they are not byte-for-byte ports.
 */
import { isIP } from 'node:net';

const normalize = (format: string): string => format.replace(/-/g, '');

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@<>]+@[^\s@<>]+$/;
const MAC = /^([0-9a-f]{2}([:-])){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){19}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const DURATION = /^(([+-]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+|0|\d+\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?))$/;
const BSON = /^[0-9a-f]{24}$/i;
const ISBN10 = /^(?:ISBN(?:-10)?:? )?(?=[0-9X]{10}$|(?=(?:[0-9]+[- ]){3})[- 0-9X]{13}$)[0-9]{1,5}[- ]?[0-9]+[- ]?[0-9]+[- ]?[0-9X]$/;
const ISBN13 = /^(?:ISBN(?:-13)?:? )?(?=[0-9]{13}$|(?=(?:[0-9]+[- ]){4})[- 0-9]{17}$)97[89][- ]?[0-9]{1,5}[- ]?[0-9]+[- ]?[0-9]+[- ]?[0-9]$/;
const CREDITCARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;

function validCidr(v: string): boolean {
  const slash = v.indexOf('/');
  if (slash < 0) return false;
  const ip = v.slice(0, slash);
  const bits = v.slice(slash + 1);
  const family = isIP(ip);
  if (!family || !/^\d+$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

function validUri(v: string): boolean {
  // Go's url.ParseRequestURI: an absolute URL or an absolute path
  if (v.startsWith('/')) return !/\s/.test(v);
  try {
    return new URL(v).protocol.length > 1;
  } catch {
    return false;
  }
}

function validDate(v: string): boolean {
  if (!DATE.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
}

const CHECKS: Record<string, (v: string) => boolean> = {
  bsonobjectid: (v) => BSON.test(v),
  uri: validUri,
  email: (v) => EMAIL.test(v),
  hostname: (v) => v.length <= 255 && HOSTNAME.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: validCidr,
  mac: (v) => MAC.test(v),
  uuid: (v) => UUID.test(v),
  uuid3: (v) => UUID3.test(v),
  uuid4: (v) => UUID4.test(v),
  uuid5: (v) => UUID5.test(v),
  isbn: (v) => ISBN10.test(v) || ISBN13.test(v),
  isbn10: (v) => ISBN10.test(v),
  isbn13: (v) => ISBN13.test(v),
  creditcard: (v) => CREDITCARD.test(v.replace(/\D/g, '')),
  ssn: (v) => SSN.test(v),
  hexcolor: (v) => HEXCOLOR.test(v),
  rgbcolor: (v) => RGBCOLOR.test(v),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  password: () => true,
  date: validDate,
  duration: (v) => DURATION.test(v),
  datetime: (v) => DATETIME.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
};

/** kube checks this format (others are dropped from the schema before validation) */
export function supportsFormat(format: string): boolean {
  return Object.prototype.hasOwnProperty.call(CHECKS, normalize(format));
}

export function checkFormat(format: string, value: string): boolean {
  const check = CHECKS[normalize(format)];
  return check ? check(value) : true;
}
