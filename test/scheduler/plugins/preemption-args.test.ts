import t from 'tap';
import { defaultPreemptionArgs, numCandidatesFor } from '../../../src/scheduler/plugins/preemption/args';

t.test('defaults are 10% and 100 nodes', async (t) => {
  t.same(defaultPreemptionArgs(undefined), { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
  t.same(defaultPreemptionArgs({ minCandidateNodesAbsolute: 5 }), { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 5 });
  t.same(defaultPreemptionArgs({ minCandidateNodesPercentage: 0 }), { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 100 });
});

t.test('invalid args fail with kube wording', async (t) => {
  t.throws(() => defaultPreemptionArgs({ minCandidateNodesPercentage: 101 }), { message: 'minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]' });
  t.throws(() => defaultPreemptionArgs({ minCandidateNodesPercentage: -1 }), { message: 'minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]' });
  t.throws(() => defaultPreemptionArgs({ minCandidateNodesAbsolute: -1 }), { message: 'minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)' });
  t.throws(() => defaultPreemptionArgs({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 }), {
    message:
      '[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, ' +
      'minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]',
  });
  t.throws(() => defaultPreemptionArgs({ minCandidateNodesPercentage: 200, minCandidateNodesAbsolute: -2 }), {
    message: '[minCandidateNodesPercentage: Invalid value: 200: not in valid range [0, 100], minCandidateNodesAbsolute: Invalid value: -2: not in valid range [0, inf)]',
  });
  t.throws(() => defaultPreemptionArgs({ minCandidateNodesAbsolute: 'x' }), { message: 'minCandidateNodesAbsolute: Invalid value: "x": must be an integer' });
});

t.test('number of candidates: percentage, at least the absolute, at most every node', async (t) => {
  t.equal(numCandidatesFor({ minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }, 50), 50);
  t.equal(numCandidatesFor({ minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }, 5000), 500);
  t.equal(numCandidatesFor({ minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }, 1000), 100);
  t.equal(numCandidatesFor({ minCandidateNodesPercentage: 25, minCandidateNodesAbsolute: 0 }, 10), 2, 'integer division');
  t.equal(numCandidatesFor({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 3 }, 10), 3);
});
