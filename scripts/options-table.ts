/**
 * The README's options tables, generated from the option tables themselves
 * (`apiServerOptionGroups`, `controllerManagerOptionGroups`, `schedulerOptionGroups`, `nodeAgentOptionGroups`), so the README cannot drift from `--help`.
 * Each component's tables sit between its own pair of markers.
 *
 *   npx tsx scripts/options-table.ts           print the generated sections
 *   npx tsx scripts/options-table.ts --write   rewrite README.md between the markers
 *
 * `make options-table` runs the second; test/docs/options-table.test.ts fails when they differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiServerOptionGroups } from '../src/options/apiserver';
import { controllerManagerOptionGroups } from '../src/options/controller-manager';
import { schedulerOptionGroups } from '../src/options/scheduler';
import { nodeAgentOptionGroups } from '../src/options/nodeagent';
import { allOnlyOptions } from '../src/options/all';
import type { OptionGroup, OptionSpec } from '../src/options/types';

export const BEGIN_MARKER = '<!-- options:begin -->';
export const END_MARKER = '<!-- options:end -->';
export const README = path.resolve(__dirname, '..', 'README.md');

/** the generated sections: the API server's between the plain markers, then one per component */
export const SECTIONS: readonly { begin: string; end: string; groups: readonly OptionGroup[] }[] = [
  { begin: BEGIN_MARKER, end: END_MARKER, groups: apiServerOptionGroups },
  { begin: '<!-- options:controller-manager:begin -->', end: '<!-- options:controller-manager:end -->', groups: controllerManagerOptionGroups },
  { begin: '<!-- options:scheduler:begin -->', end: '<!-- options:scheduler:end -->', groups: schedulerOptionGroups },
  { begin: '<!-- options:all:begin -->', end: '<!-- options:all:end -->', groups: [allOnlyOptions] },
  { begin: '<!-- options:nodeagent:begin -->', end: '<!-- options:nodeagent:end -->', groups: nodeAgentOptionGroups },
];

/** one Markdown table per option group, in --help order */
export function renderOptionsTables(groups: readonly OptionGroup[] = apiServerOptionGroups): string {
  const out: string[] = [];
  for (const group of groups) {
    if (group.options.length === 0) continue;
    out.push(`#### ${group.title}`, '', '| flag | type | default | what Ballast does | support |', '|---|---|---|---|---|');
    for (const o of group.options) out.push(row(o));
    out.push('');
  }
  return out.join('\n');
}

function row(o: OptionSpec): string {
  const flag = (o.short && o.short !== o.name ? `\`-${o.short}\`, ` : '') + `\`--${o.name}\``;
  const dflt = o.defaultText ?? o.default;
  const cells = [
    flag,
    o.typeWord ?? o.type,
    dflt === undefined || dflt === '' ? '' : code(dflt),
    cell(o.description) + (o.hidden ? ' (hidden in --help)' : ''),
    o.support === 'supported' ? 'acts on it' : 'accepted, no effect',
  ];
  return `| ${cells.join(' | ')} |`;
}

/** table cell text: pipes escaped, one line */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function code(text: string): string {
  return text.includes('`') ? `\`\` ${cell(text)} \`\`` : `\`${cell(text)}\``;
}

/** the README text with the generated tables between the markers; throws when the markers are missing */
export function withOptionsTables(readme: string, tables: string = renderOptionsTables(), beginMarker = BEGIN_MARKER, endMarker = END_MARKER): string {
  const begin = readme.indexOf(beginMarker);
  const end = readme.indexOf(endMarker);
  if (begin < 0 || end < begin) throw new Error(`README.md: the markers ${beginMarker} and ${endMarker} are missing`);
  return `${readme.slice(0, begin)}${beginMarker}\n\n${tables}\n${readme.slice(end)}`;
}

/** the README with every component's section regenerated */
export function withAllOptionsTables(readme: string): string {
  return SECTIONS.reduce((text, s) => withOptionsTables(text, renderOptionsTables(s.groups), s.begin, s.end), readme);
}

if (require.main === module) {
  if (process.argv.includes('--write')) {
    const before = fs.readFileSync(README, 'utf8');
    const after = withAllOptionsTables(before);
    if (after !== before) fs.writeFileSync(README, after);
    process.stdout.write(after === before ? 'README.md options tables are up to date\n' : 'README.md options tables rewritten\n');
  } else {
    process.stdout.write(SECTIONS.map((s) => renderOptionsTables(s.groups)).join('\n'));
  }
}
