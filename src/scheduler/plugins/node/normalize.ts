/**
 * kube's helper.DefaultNormalizeScore: scale scores so the highest becomes `maxPriority` (integer
 * division, as Go's int64 arithmetic), optionally reversed so the highest raw score ends lowest.
 * When every score is 0 they stay 0, or all become `maxPriority` when reversed.
 */
import type { NodeScore } from '../../framework/types';

export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): void {
  let max = 0;
  for (let i = 0; i < scores.length; i++) if (scores[i].score > max) max = scores[i].score;
  if (max === 0) {
    if (reverse) for (let i = 0; i < scores.length; i++) scores[i].score = maxPriority;
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const scaled = Math.trunc((maxPriority * scores[i].score) / max);
    scores[i].score = reverse ? maxPriority - scaled : scaled;
  }
}
