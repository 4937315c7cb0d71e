/**
 * TRAIN_SCORE_BALANCE (balanceScoreGolds): per source, score questions whose golds lie in the
 * low, middle and high part of their rubric end up weighing alike (when no factor reaches its cap
 * of 3), a gold and its mirror image get the same factor, and nothing but score weights changes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReaderText } from '../src/heads/reader/batch.js';
import type { ReaderExample, ReaderItem } from '../src/training/reader/examples.js';
import { balanceScoreGolds } from '../src/training/reader/train.js';

const empty: ReaderText = { tokens: new Float32Array(0), n: 0, ids: [] };
const item = (type: ReaderItem['type'], gold: number, levels: number, weight = 1): ReaderItem => ({ type, instructions: empty, lines: Array.from({ length: levels }, () => empty), gold, weight });
const example = (source: string, items: ReaderItem[]): ReaderExample => ({ id: `${source}/${Math.random()}`, source, state: empty, items });
const part = (gold: number, levels: number) => {
  const d = gold / (levels - 1) - 0.5;
  return d < -1 / 6 - 1e-9 ? 0 : d > 1 / 6 + 1e-9 ? 2 : 1;
};

describe('balanceScoreGolds', () => {
  it('makes the three parts of the rubric weigh alike per source', () => {
    const score = fc.record({ levels: fc.integer({ min: 2, max: 10 }), at: fc.double({ min: 0, max: 0.999, noNaN: true }), weight: fc.constantFrom(1, 0.5, 3) });
    fc.assert(
      fc.property(fc.array(fc.record({ source: fc.constantFrom('a', 'b'), scores: fc.array(score, { maxLength: 4 }), noul: fc.boolean() }), { minLength: 1, maxLength: 40 }), (spec) => {
        const examples = spec.map(({ source, scores, noul }) =>
          example(source, [...scores.map((s) => item('score', Math.floor(s.at * s.levels), s.levels, s.weight)), ...(noul ? [item('noul', 0, 2, 2)] : [])]),
        );
        const out = balanceScoreGolds(examples);
        expect(out.length).toBe(examples.length);
        for (const source of ['a', 'b']) {
          const sums = [0, 0, 0];
          const counts = [0, 0, 0];
          out.forEach((ex, i) => {
            if (ex.source !== source) return;
            ex.items.forEach((it, j) => {
              const was = examples[i]!.items[j]!;
              if (it.type !== 'score') return expect(it.weight).toBe(was.weight);
              const p = part(it.gold, it.lines.length);
              const factor = it.weight / was.weight;
              expect(factor).toBeGreaterThan(0);
              expect(factor).toBeLessThanOrEqual(3 + 1e-12);
              sums[p]! += factor;
              counts[p]! += 1;
            });
          });
          const present = counts.filter((n) => n > 0).length;
          const total = counts.reduce((a, b) => a + b, 0);
          // Uncapped parts each weigh total / present (every question of a part has one factor).
          counts.forEach((n, p) => n > 0 && total / (present * n) <= 3 && expect(sums[p]!).toBeCloseTo(total / present, 9));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives a gold and its mirror image the same factor when the source is symmetric', () => {
    const levels = 5;
    const golds = [0, 1, 2, 2, 2, 2, 3, 4];
    const out = balanceScoreGolds([example('s', golds.map((g) => item('score', g, levels)))]);
    const factor = (g: number) => out[0]!.items[golds.indexOf(g)]!.weight;
    expect(factor(0)).toBe(factor(4));
    expect(factor(1)).toBe(factor(3));
    // Four middle golds of eight: the middle weighs 8 / 3 in all, as do the low and high parts.
    expect(factor(2) * 4).toBeCloseTo(8 / 3, 12);
    expect(factor(0) * 2).toBeCloseTo(8 / 3, 12);
  });
});
