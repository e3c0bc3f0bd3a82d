import t from 'tap';
import type { KubeObject } from '../../../src/client/types';
import { pickOneNodeForPreemption, type Candidate } from '../../../src/scheduler/plugins/preemption/pick-node';
import { makePod } from '../helpers';

const pod = (priority: number, startTime?: string): KubeObject => {
  const p = makePod(`p${priority}`, { priority, node: 'n' });
  if (startTime) (p.status as Record<string, unknown>).startTime = startTime;
  return p;
};
const cand = (name: string, pods: KubeObject[], numPDBViolations = 0): Candidate => ({ name, victims: { pods, numPDBViolations } });

t.test('no candidates: nothing', async (t) => {
  t.equal(pickOneNodeForPreemption([]), undefined);
});

t.test('a node needing no victims wins at once', async (t) => {
  t.equal(pickOneNodeForPreemption([cand('a', [pod(1)]), cand('b', [], 3)])?.name, 'b');
});

t.test('fewest PDB violations first', async (t) => {
  t.equal(pickOneNodeForPreemption([cand('a', [pod(1)], 2), cand('b', [pod(100), pod(100)], 1)])?.name, 'b');
});

t.test('then the lowest priority of the most important victim', async (t) => {
  t.equal(pickOneNodeForPreemption([cand('a', [pod(10), pod(1)]), cand('b', [pod(5), pod(5), pod(5)])])?.name, 'b');
});

t.test('then the smallest sum of shifted priorities', async (t) => {
  t.equal(pickOneNodeForPreemption([cand('a', [pod(10), pod(9)]), cand('b', [pod(10), pod(1)])])?.name, 'b');
  // with negative priorities a plain sum would prefer more pods; the 2^31 shift prefers fewer
  t.equal(pickOneNodeForPreemption([cand('a', [pod(-5), pod(-5)]), cand('b', [pod(-5)])])?.name, 'b');
});

t.test('then fewest victims', async (t) => {
  // a victim of priority -2^31 adds 0 to the shifted sum: the sums tie, the counts do not
  t.equal(pickOneNodeForPreemption([cand('a', [pod(5), pod(-(2 ** 31))]), cand('b', [pod(5)])])?.name, 'b');
});

t.test('then the latest start among the most important victims', async (t) => {
  const early = '2026-01-01T00:00:00Z';
  const late = '2026-01-02T00:00:00Z';
  t.equal(pickOneNodeForPreemption([cand('a', [pod(5, early)]), cand('b', [pod(5, late)])])?.name, 'b');
  t.equal(pickOneNodeForPreemption([cand('a', [pod(5, late)]), cand('b', [pod(5, early)])])?.name, 'a');
  // only the highest-priority victims count, and among them the earliest
  t.equal(
    pickOneNodeForPreemption([cand('a', [pod(5, late), pod(5, early), pod(1, late)]), cand('b', [pod(5, late), pod(5, late), pod(1, early)])])?.name,
    'b',
  );
});

t.test('all equal: the first', async (t) => {
  const s = '2026-01-01T00:00:00Z';
  t.equal(pickOneNodeForPreemption([cand('a', [pod(5, s)]), cand('b', [pod(5, s)]), cand('c', [pod(5, s)])])?.name, 'a');
});
