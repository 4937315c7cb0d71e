/**
 * The counterfactual-pair term's pairs (TRAIN_PAIR_MARGIN): the same yes/no question asked of the
 * two cases of one pair group with opposite golds, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import type { ReaderText } from '../src/heads/reader/batch.js';
import type { ReaderExample, ReaderItem } from '../src/training/reader/examples.js';
import { counterfactualPairs } from '../src/training/reader/loop.js';

const text = (...ids: number[]): ReaderText => ({ tokens: new Float32Array(ids.length * 512), n: ids.length, ids });
const noul = (q: number, gold: number, criteria = false): ReaderItem => ({ type: 'noul', instructions: text(q, 2), lines: criteria ? [text(7), text(8)] : [text(), text()], gold, weight: gold === 0 ? 2 : 1 });
const ex = (id: string, items: ReaderItem[], pair?: string, source = 'generated/states'): ReaderExample => ({ id, source, ...(pair ? { pair } : {}), state: text(9), items });

describe('counterfactualPairs', () => {
  it('pairs the same question across the two cases of a pair group, yes side first', () => {
    const a = ex('a', [noul(1, 0), noul(3, 1)], 'p1');
    const b = ex('b', [noul(1, 1), noul(3, 0)], 'p1');
    const items = [...a.items, ...b.items];
    expect(counterfactualPairs([a, b], items)).toEqual([
      { yes: 0, no: 2, weight: 1 },
      { yes: 3, no: 1, weight: 1 },
    ]);
  });

  it('leaves out unpaired cases, other pair groups and sources, equal golds and questions with criteria', () => {
    const a = ex('a', [noul(1, 0), noul(4, 0, true)], 'p1');
    const b = ex('b', [noul(1, 0), noul(4, 1, true)], 'p1');
    const c = ex('c', [noul(1, 1)], 'p2');
    const d = ex('d', [noul(1, 1)], 'p1', 'corpus/x');
    const e = ex('e', [noul(1, 1)]);
    const batch = [a, b, c, d, e];
    expect(counterfactualPairs(batch, batch.flatMap((x) => x.items))).toEqual([]);
  });
});
