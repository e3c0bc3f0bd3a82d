import type { OptionGroup, OptionSpec, OptionType } from './types';

/** the type word pflag prints after a flag name (bools print none) */
const TYPE_WORD: Record<OptionType, string> = {
  bool: '',
  version: 'version[=true]',
  string: 'string',
  int: 'int',
  uint: 'uint',
  float: 'float',
  duration: 'duration',
  ip: 'ip',
  level: 'Level',
  stringSlice: 'strings',
  stringArray: 'stringArray',
  namedCertKey: 'namedCertKey',
  cidrs: 'cidrs',
  mapStringString: 'mapStringString',
  mapStringBool: 'mapStringBool',
  portRange: 'portRange',
  severity: 'severity',
  moduleSpec: 'pattern=N,...',
  traceLocation: 'traceLocation',
};

export const NOT_ACTED_ON = '[accepted, no effect yet]';

export interface HelpOptions {
  /** e.g. `ballast apiserver [flags]` */
  usage: string;
  /** a paragraph saying what the command does */
  description: string;
  groups: readonly OptionGroup[];
  /** wrap width (default 100) */
  width?: number;
}

/** render `--help` from option tables, grouped like kube's help ("Secure serving flags:") */
export function renderHelp(opts: HelpOptions): string {
  const width = opts.width ?? 100;
  const lines: string[] = [...wrap(opts.description, width, ''), '', 'Usage:', `  ${opts.usage}`, ''];
  for (const group of opts.groups) {
    const visible = group.options.filter((o) => !o.hidden);
    if (visible.length === 0) continue;
    lines.push(`${group.title}:`, '');
    for (const o of visible) lines.push(...renderOption(o, width), '');
  }
  lines.push(`Options marked ${NOT_ACTED_ON} are parsed and checked so existing command lines work, but Ballast`);
  lines.push('does not act on them yet.');
  return lines.join('\n') + '\n';
}

function renderOption(o: OptionSpec, width: number): string[] {
  const flag = o.short ? `  -${o.short}, --${o.name}` : `      --${o.name}`;
  const type = o.typeWord ?? TYPE_WORD[o.type];
  const head = type ? `${flag} ${type}` : flag;
  let text = o.description;
  const shown = o.defaultText ?? displayDefault(o);
  if (shown !== undefined) text += ` (default ${shown})`;
  if (o.support === 'accepted') text += ` ${NOT_ACTED_ON}`;
  return [head, ...wrap(text, width, '          '), ...(o.helpLines?.() ?? []).map((l) => `            ${l}`)];
}

function displayDefault(o: OptionSpec): string | undefined {
  const d = o.default;
  // pflag hides zero defaults: false bools, empty strings and lists, 0 numbers and durations
  if (d === undefined || d === '' || d === 'false' || d === '0' || d === '0s') return undefined;
  if (o.type === 'stringSlice' || o.type === 'cidrs') return `[${d}]`;
  if (o.type === 'string') return `"${d}"`;
  return d;
}

function wrap(text: string, width: number, indent: string): string[] {
  const out: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/)) {
    if (line.length > indent.length && line.length + 1 + word.length > width) {
      out.push(line);
      line = indent;
    }
    line += (line.length > indent.length ? ' ' : '') + word;
  }
  if (line.length > indent.length) out.push(line);
  return out;
}
