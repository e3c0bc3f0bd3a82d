import type { OptionSpec, OptionType, OptionValue } from './types';

interface Extra {
  default?: string;
  defaultText?: string;
  short?: string;
  /** true when Ballast acts on the option (default: accepted only) */
  supported?: boolean;
  validate?: (value: OptionValue) => string | undefined;
  hidden?: boolean;
  helpLines?: () => readonly string[];
  typeWord?: string;
}

/** declare one option; tables read as `option(name, type, description, {default, supported})` */
export function option(name: string, type: OptionType, description: string, extra: Extra = {}): OptionSpec {
  return Object.freeze({
    name,
    type,
    description,
    short: extra.short,
    default: extra.default,
    defaultText: extra.defaultText,
    support: extra.supported ? 'supported' : 'accepted',
    validate: extra.validate,
    hidden: extra.hidden,
    helpLines: extra.helpLines,
    ...(extra.typeWord !== undefined && { typeWord: extra.typeWord }),
  });
}

/** a validator accepting only the listed strings */
export function oneOf(...allowed: string[]): (v: OptionValue) => string | undefined {
  return (v) => (typeof v === 'string' && allowed.includes(v) ? undefined : `must be one of ${allowed.join(', ')}`);
}

/** a validator for list options whose items must each come from the allowed set */
export function eachOf(...allowed: string[]): (v: OptionValue) => string | undefined {
  return (v) => {
    const bad = (v as string[]).filter((x) => !allowed.includes(x));
    return bad.length ? `unknown value(s) ${bad.join(', ')}; allowed: ${allowed.join(', ')}` : undefined;
  };
}

/** a validator for numbers in [min, max] */
export function between(min: number, max: number): (v: OptionValue) => string | undefined {
  return (v) => (typeof v === 'number' && v >= min && v <= max ? undefined : `must be between ${min} and ${max}, inclusive`);
}

/** a validator for numbers >= min */
export function atLeast(min: number): (v: OptionValue) => string | undefined {
  return (v) => (typeof v === 'number' && v >= min ? undefined : `must be ${min} or greater`);
}
