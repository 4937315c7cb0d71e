/**
 * The counterfactual-pair term's pairs (TRAIN_PAIR_MARGIN): the same yes/no question asked of the
 * two cases of one pair group with opposite golds, and nothing else.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReaderText } from '../src/heads/reader/batch.js';
import type { ReaderExample, ReaderItem } from '../src/training/reader/examples.js';
import type { ReaderShape } from '../src/heads/reader/architecture.js';
import { batchLoss, counterfactualPairs, predict } from '../src/training/reader/loop.js';
import { initParams } from '../src/training/reader/train.js';
import { trainingBackend } from './reader-helpers.js';

beforeAll(trainingBackend);

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

describe('the pair term in batchLoss', () => {
  it('adds w * softplus(-(yes logit - no logit)) per pair, and trains on the training backend', () => {
    const small: ReaderShape = { width: 16, heads: 2, layers: 1, ffn: 16, mlp: 8 };
    const params = initParams(small, 5);
    // Readouts start at zero; a random last layer makes the two sides' logits differ.
    params['noul.w2']!.assign(tf.randomNormal([small.mlp, 1], 0, 1, 'float32', 3));
    const state = (id: number): ReaderText => ({ tokens: tf.randomNormal([3, 512], 0, 1, 'float32', id).dataSync() as Float32Array, n: 3, ids: [id, id + 1, id + 2] });
    const a: ReaderExample = { id: 'a', source: 's', pair: 'p', state: state(10), items: [noul(1, 0)] };
    const b: ReaderExample = { id: 'b', source: 's', pair: 'p', state: state(20), items: [noul(1, 1)] };
    const [za, zb] = predict(params, small, [a, b]).map((p) => p.logits[0]!);
    const total = a.items[0]!.weight + b.items[0]!.weight;
    const expected = Math.log1p(Math.exp(-(za! - zb!))) * Math.min(a.items[0]!.weight, b.items[0]!.weight) / total;
    const plain = batchLoss(params, small, [a, b], 0, () => 0.9).dataSync()[0]!;
    const withPairs = batchLoss(params, small, [a, b], 0, () => 0.9, 0.5).dataSync()[0]!;
    expect(withPairs - plain).toBeCloseTo(0.5 * expected, 4);
    // A step through the term's gradient (tf.gather's would need a kernel the wasm backend lacks).
    const optimizer = tf.train.adam(1e-2);
    expect(() => optimizer.minimize(() => batchLoss(params, small, [a, b], 0, () => 0.9, 1), true)!.dispose()).not.toThrow();
    tf.dispose(Object.values(params));
  });
});
