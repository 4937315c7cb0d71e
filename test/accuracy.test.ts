import { describe, expect, it } from 'vitest';
import { brier, ece, itemScore, percentile, spearman, summarise } from '../bench/accuracy/metrics.js';

describe('accuracy metrics (JevBench rule)', () => {
  it('scores the top option 1 and a k-way tie 1/k', () => {
    expect(itemScore([0.7, 0.3], 0)).toBe(1);
    expect(itemScore([0.7, 0.3], 1)).toBe(0);
    expect(itemScore([0.5, 0.5], 1)).toBe(0.5);
    expect(itemScore([0.3, 0.3, 0.3, 0.1], 2)).toBeCloseTo(1 / 3, 12);
    expect(itemScore([0.3, 0.3, 0.3, 0.1], 3)).toBe(0);
  });
  it('Brier, ECE, Spearman and percentiles', () => {
    expect(brier([1, 0], 0)).toBe(0);
    expect(brier([0.5, 0.5], 0)).toBe(0.5);
    expect(ece([{ conf: 0.9, correct: 1 }, { conf: 0.9, correct: 0 }])).toBeCloseTo(0.4, 12);
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
  });
  it('summarises with a uniform reference', () => {
    const s = summarise([
      { type: 'noul', probs: [0.8, 0.2], gold: 0 },
      { type: 'noul', probs: [0.5, 0.5], gold: 1 },
    ]);
    expect(s.accuracy).toBeCloseTo(0.75, 12);
    expect(s.uniform).toBeCloseTo(0.5, 12);
    expect(s.goldProb).toBeCloseTo(0.65, 12);
  });
});
