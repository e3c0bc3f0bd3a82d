import { convertValue } from './values';
import { FlagError } from './types';
import type { OptionGroup, OptionSpec, OptionValue } from './types';

/** the result of parsing a command line against option tables */
export class ParsedOptions {
  readonly #specs: Map<string, OptionSpec>;
  readonly #values: Map<string, OptionValue>;
  readonly #set: Set<string>;
  /** arguments that are not flags */
  readonly args: readonly string[];

  constructor(init: { specs: Map<string, OptionSpec>; values: Map<string, OptionValue>; set: Set<string>; args: string[] }) {
    this.#specs = init.specs;
    this.#values = init.values;
    this.#set = init.set;
    this.args = Object.freeze([...init.args]);
  }

  /** true when the flag appeared on the command line */
  isSet(name: string): boolean {
    this.#spec(name);
    return this.#set.has(name);
  }

  /** the value (given or default), or undefined when neither exists */
  value(name: string): OptionValue | undefined {
    this.#spec(name);
    return this.#values.get(name);
  }

  string(name: string): string | undefined {
    const v = this.value(name);
    return v === undefined ? undefined : String(v);
  }

  number(name: string): number | undefined {
    const v = this.value(name);
    return typeof v === 'number' ? v : undefined;
  }

  bool(name: string): boolean {
    return this.value(name) === true;
  }

  list(name: string): string[] {
    const v = this.value(name);
    return Array.isArray(v) ? [...v] : [];
  }

  /** names of the given flags that Ballast parses but does not act on yet */
  acceptedButIgnored(): string[] {
    return [...this.#set].filter((n) => this.#specs.get(n)?.support === 'accepted');
  }

  #spec(name: string): OptionSpec {
    const spec = this.#specs.get(name);
    // A typo in our own code, not the user's: fail loudly.
    if (!spec) throw new TypeError(`no option named --${name} in this command's tables`);
    return spec;
  }
}

/**
 * Parse argv (without the node binary, script and subcommand) in pflag's manner:
 * `--name=value`, `--name value`, bool `--name` / `--name=false`, shorthand `-v 2` / `-v=2` / `-v2`,
 * `--` ends the flags. Unknown flags and bad values throw FlagError with kube's wording.
 */
export function parseOptions(groups: readonly OptionGroup[], argv: readonly string[]): ParsedOptions {
  const specs = new Map<string, OptionSpec>();
  const shorts = new Map<string, OptionSpec>();
  for (const g of groups) {
    for (const o of g.options) {
      if (specs.has(o.name)) throw new TypeError(`option --${o.name} declared twice`);
      specs.set(o.name, o);
      if (o.short) shorts.set(o.short, o);
    }
  }

  const values = new Map<string, OptionValue>();
  const set = new Set<string>();
  const args: string[] = [];

  const assign = (spec: OptionSpec, text: string, shown: string): void => {
    // The first occurrence replaces the default; later ones accumulate (lists, maps) or override.
    const previous = set.has(spec.name) ? values.get(spec.name) : undefined;
    let value: OptionValue;
    try {
      value = convertValue(spec, text, previous);
    } catch (err) {
      throw new FlagError(`invalid argument "${text}" for "${shown}" flag: ${(err as Error).message}`);
    }
    const problem = spec.validate?.(value);
    if (problem) throw new FlagError(`invalid argument "${text}" for "${shown}" flag: ${problem}`);
    values.set(spec.name, value);
    set.add(spec.name);
  };

  const takesNoValue = (spec: OptionSpec): boolean => spec.type === 'bool' || spec.type === 'version';

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = eq >= 0 ? body.slice(0, eq) : body;
      const spec = specs.get(name);
      if (!spec) throw new FlagError(`unknown flag: --${name}`);
      const shown = `--${name}`;
      if (eq >= 0) assign(spec, body.slice(eq + 1), shown);
      else if (takesNoValue(spec)) assign(spec, 'true', shown);
      else if (i + 1 < argv.length) assign(spec, argv[++i], shown);
      else throw new FlagError(`flag needs an argument: ${shown}`);
    } else if (arg.startsWith('-') && arg.length > 1) {
      // a cluster of shorthands: each letter is a flag until one takes the rest as its value
      const body = arg.slice(1);
      for (let j = 0; j < body.length; j++) {
        const letter = body[j];
        const spec = shorts.get(letter);
        if (!spec) throw new FlagError(`unknown shorthand flag: '${letter}' in -${body}`);
        const shown = `-${letter}, --${spec.name}`;
        const rest = body.slice(j + 1);
        if (rest.startsWith('=')) {
          assign(spec, rest.slice(1), shown);
          break;
        }
        if (takesNoValue(spec)) {
          assign(spec, 'true', shown);
          continue;
        }
        if (rest !== '') assign(spec, rest, shown);
        else if (i + 1 < argv.length) assign(spec, argv[++i], shown);
        else throw new FlagError(`flag needs an argument: '${letter}' in -${body}`);
        break;
      }
    } else {
      args.push(arg);
    }
  }

  for (const spec of specs.values()) {
    if (set.has(spec.name) || spec.default === undefined) continue;
    values.set(spec.name, convertValue(spec, spec.default, undefined));
  }
  return new ParsedOptions({ specs, values, set, args });
}
