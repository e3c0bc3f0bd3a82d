/**
 * Summarize a V8 .cpuprofile (node --cpu-prof): self time by function and by file, the heaviest
 * first. `node dist/bench/profile-summary.js <file.cpuprofile> [top]`
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export function summarizeProfile(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  for (const [id, us] of self) {
    const cf = byId.get(id)!.callFrame;
    const short = cf.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|dist)\//, '$1/');
    const name = `${cf.functionName || '(anonymous)'} ${short}:${cf.lineNumber + 1}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const f = short || `(${cf.functionName})`;
    file.set(f, (file.get(f) ?? 0) + us);
  }
  const fmt = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  return [`total ${(total / 1000).toFixed(0)} ms sampled`, '', 'self time by function:', ...fmt(fn), '', 'self time by file:', ...fmt(file)].join('\n');
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  process.stdout.write(summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(top ?? 25)) + '\n');
}
