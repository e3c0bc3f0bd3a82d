/**
 * Option tables: every command-line option of a component, declared once, used both by the parser
 * and by `--help`. Names, types and defaults follow the Kubernetes components (spec document 2).
 */

/**
 * Value types, named after the pflag types kube's `--help` prints.
 * - bool: `--x`, `--x=true`, `--x=false` (never consumes the next argument)
 * - stringSlice/cidrs: comma-separated; a repeated flag appends
 * - stringArray/namedCertKey: one item per occurrence (no comma splitting)
 * - mapStringString/mapStringBool: `k=v,k2=v2`; a repeated flag adds keys
 * - duration: Go notation (`5m0s`), held in milliseconds
 * - version: like bool, but `--version=raw` is also accepted
 */
export type OptionType =
  | 'bool'
  | 'string'
  | 'int'
  | 'uint'
  | 'float'
  | 'duration'
  | 'ip'
  | 'level'
  | 'stringSlice'
  | 'stringArray'
  | 'namedCertKey'
  | 'cidrs'
  | 'mapStringString'
  | 'mapStringBool'
  | 'portRange'
  | 'severity'
  | 'moduleSpec'
  | 'traceLocation'
  | 'version';

export type OptionValue = boolean | string | number | string[] | Record<string, string> | Record<string, boolean>;

/**
 * Whether Ballast acts on an option yet. `accepted` options are parsed and validated so existing
 * command lines keep working, and `--help` says they have no effect yet.
 */
export type OptionSupport = 'supported' | 'accepted';

export interface OptionSpec {
  /** long name without dashes, e.g. `secure-port` */
  readonly name: string;
  /** one-letter shorthand without the dash, e.g. `v` */
  readonly short?: string;
  readonly type: OptionType;
  /** default in command-line notation (parsed like a given value); absent means unset */
  readonly default?: string;
  /** text shown as the default in help when it is computed at run time (e.g. the data dir) */
  readonly defaultText?: string;
  readonly description: string;
  readonly support: OptionSupport;
  /** extra check after type parsing; return an error message to refuse the value */
  readonly validate?: (value: OptionValue) => string | undefined;
  /** hide from --help (kept for compatibility) */
  readonly hidden?: boolean;
  /** lines --help prints after the description, one a line (kube lists feature gates so) */
  readonly helpLines?: () => readonly string[];
  /** the type word --help prints when pflag's differs from `type`'s (kube's custom flag values) */
  readonly typeWord?: string;
}

/** a titled section of options, like kube's "Secure serving flags:" */
export interface OptionGroup {
  readonly title: string;
  readonly options: readonly OptionSpec[];
}

/** a thrown parse/validation error; the CLI prints `Error: <message>` and exits 1 */
export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}
