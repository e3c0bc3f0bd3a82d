import fs from 'node:fs';
import t from 'tap';
import { apiServerOptionGroups } from '../../src/options/apiserver';
import { BEGIN_MARKER, END_MARKER, README, SECTIONS, renderOptionsTables, withAllOptionsTables, withOptionsTables } from '../../scripts/options-table';

t.test('README.md\'s options tables are the generated ones (run `make options-table`)', async (t) => {
  const readme = fs.readFileSync(README, 'utf8');
  for (const s of SECTIONS) t.ok(readme.includes(s.begin) && readme.includes(s.end), `the markers ${s.begin} are in README.md`);
  t.equal(withAllOptionsTables(readme), readme, 'README.md is out of date: run `make options-table`');
});

t.test('every option of every group is a row, with its support', async (t) => {
  const tables = renderOptionsTables();
  for (const group of apiServerOptionGroups) {
    t.ok(tables.includes(`#### ${group.title}\n`), group.title);
    for (const o of group.options) t.match(tables, new RegExp(`^\\| (\`-${o.short}\`, )?\`--${o.name}\` \\|`, 'm'), o.name);
  }
  t.match(tables, /^\| `--logtostderr` \| bool \| `true` \| .* \| acts on it \|$/m);
  t.match(tables, /^\| `--cloud-provider` \| string \|  \| .* \| accepted, no effect \|$/m);
});

t.test('the rows follow the option tables, pipes escaped', async (t) => {
  const tables = renderOptionsTables([
    { title: 'Test flags', options: [{ name: 'x', type: 'string', default: 'a|b', description: 'one | two', support: 'accepted' }] },
  ]);
  t.equal(tables, '#### Test flags\n\n| flag | type | default | what Ballast does | support |\n|---|---|---|---|---|\n| `--x` | string | `a\\|b` | one \\| two | accepted, no effect |\n');
  t.throws(() => withOptionsTables('no markers'), /markers .* are missing/);
  t.equal(withOptionsTables(`a\n${BEGIN_MARKER}\nold\n${END_MARKER}\nb`, 'NEW\n'), `a\n${BEGIN_MARKER}\n\nNEW\n\n${END_MARKER}\nb`);
});
