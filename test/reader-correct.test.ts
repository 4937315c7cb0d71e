/**
 * The reader as a correction of the heads' answers (src/heads/reader/correct.ts): with its
 * readouts at zero (where training starts) it gives back the heads' probabilities; on random
 * parameters its answers are distributions, swapping noul criteria (with the heads' answer
 * swapped) gives the complement, and choice follows its options (and their base) under any
 * permutation.
 */
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE, INPUT, paramShapes, type ReaderShape } from '../src/heads/reader/architecture.js';
import type { ReaderText } from '../src/heads/reader/batch.js';
import { baseOf, correctAnswers, READER_STATE_TOKENS, readerState, type AnsweredQuestion } from '../src/heads/reader/correct.js';
import type { LoadedReader } from '../src/heads/reader/logits.js';
import { BUCKETS } from '../src/heads/reader/weights.js';

const SHAPE: ReaderShape = { ...DEFAULT_SHAPE, width: 32, heads: 4, ffn: 48, mlp: 16 };

function readerOf(seed: number, zeroReadouts: boolean): LoadedReader {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  const members = [Object.fromEntries(
    Object.entries(paramShapes(SHAPE)).map(([n, sh]) => {
      const size = sh.reduce((a, b) => a * b, 1);
      const zero = zeroReadouts && (/\.w2$/.test(n) || /\.b2$/.test(n));
      return [n, tf.tensor(Float32Array.from({ length: size }, () => (zero ? 0 : next() * 0.6)), sh)];
    }),
  )];
  return { shape: SHAPE, members, temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1])) };
}

function text(n: number, seed: number): ReaderText {
  const tokens = Float32Array.from({ length: n * INPUT }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) * 2);
  return { tokens, n, ids: Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 23) };
}
const textArb = fc.record({ n: fc.integer({ min: 1, max: 7 }), seed: fc.integer({ min: 1, max: 1000 }) }).map(({ n, seed }) => text(n, seed));
const probability = fc.double({ min: 0, max: 1, noNaN: true });
const distribution = (k: number) => fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: k, maxLength: k }).map((w) => w.map((x) => x / w.reduce((a, b) => a + b, 0)));

let zeroed: LoadedReader;
let random: LoadedReader;
beforeAll(async () => {
  await tf.setBackend('cpu');
  zeroed = readerOf(5, true);
  random = readerOf(6, false);
});

describe('the reader correcting the heads', () => {
  it('with its readouts at zero it gives back the heads’ answers (up to the soft bound of the logits)', () => {
    fc.assert(
      fc.property(textArb, textArb, fc.double({ min: 0.02, max: 0.98, noNaN: true }), fc.integer({ min: 2, max: 6 }).chain((k) => fc.tuple(fc.array(textArb, { minLength: k, maxLength: k }), distribution(k))), (state, instr, p, [options, dist]) => {
        const [noul, choice] = correctAnswers(zeroed, state, [
          { type: 'noul', instructions: instr, lines: [text(0, 1), text(0, 2)], probabilities: [p] },
          { type: 'choice', instructions: instr, lines: options, probabilities: dist },
        ]);
        expect(Math.abs(noul![0]! - p)).toBeLessThan(0.01);
        choice!.forEach((q, i) => expect(Math.abs(q - dist[i]!)).toBeLessThan(0.01));
      }),
      { numRuns: 25 },
    );
  });

  it('answers are distributions whatever the heads said, 0 and 1 included', () => {
    fc.assert(
      fc.property(textArb, textArb, probability, fc.array(probability, { minLength: 2, maxLength: 5 }), (state, instr, p, raw) => {
        const [noul, score] = correctAnswers(random, state, [
          { type: 'noul', instructions: instr, lines: [text(0, 1), text(0, 2)], probabilities: [p] },
          { type: 'score', instructions: instr, lines: raw.map((_, i) => text(2, i + 3)), probabilities: raw },
        ]);
        expect(noul![0]).toBeGreaterThanOrEqual(0);
        expect(noul![0]).toBeLessThanOrEqual(1);
        expect(Math.abs(score!.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-9);
        score!.forEach((q) => expect(Number.isFinite(q) && q >= 0).toBe(true));
      }),
      { numRuns: 25 },
    );
  });

  it('swapping noul criteria, with the heads’ answer swapped too, gives the complement', () => {
    fc.assert(
      fc.property(textArb, textArb, textArb, textArb, fc.double({ min: 0.01, max: 0.99, noNaN: true }), (state, instr, yes, no, p) => {
        const [a, b] = correctAnswers(random, state, [
          { type: 'noul', instructions: instr, lines: [yes, no], probabilities: [p] },
          { type: 'noul', instructions: instr, lines: [no, yes], probabilities: [1 - p] },
        ]);
        expect(Math.abs(a![0]! + b![0]! - 1)).toBeLessThan(1e-5);
      }),
      { numRuns: 25 },
    );
  });

  it('choice follows its options and their base under any permutation', () => {
    fc.assert(
      fc.property(
        textArb,
        textArb,
        fc.integer({ min: 2, max: 6 }).chain((k) => fc.tuple(fc.array(textArb, { minLength: k, maxLength: k }), distribution(k), fc.shuffledSubarray([...Array(k).keys()], { minLength: k, maxLength: k }))),
        (state, instr, [options, dist, perm]) => {
          const q = (order: number[]): AnsweredQuestion => ({ type: 'choice', instructions: instr, lines: order.map((i) => options[i]!), probabilities: order.map((i) => dist[i]!) });
          const [plain] = correctAnswers(random, state, [q(options.map((_, i) => i))]);
          const [permuted] = correctAnswers(random, state, [q(perm)]);
          perm.forEach((from, to) => expect(Math.abs(permuted![to]! - plain![from]!)).toBeLessThan(1e-5));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('every bias reaches the answers (none is dropped on the way to its layer)', () => {
    const state = text(6, 11);
    const questions: AnsweredQuestion[] = [
      { type: 'noul', instructions: text(4, 12), lines: [text(0, 1), text(0, 2)], probabilities: [0.4] },
      { type: 'noul', instructions: text(4, 12), lines: [text(3, 13), text(2, 14)], probabilities: [0.6] },
      // With field-pair inputs, so the field-pair term's bias is read too.
      { type: 'choice', instructions: text(3, 15), lines: [text(2, 16), text(3, 17)], probabilities: [0.3, 0.7], fieldPair: 0.8 },
      { type: 'score', instructions: text(3, 18), lines: [text(2, 19), text(2, 20), text(2, 21)], probabilities: [0.2, 0.5, 0.3], fieldPair: 0.35 },
    ];
    const before = correctAnswers(random, state, questions).flat();
    const biases = Object.keys(random.members[0]!).filter((n) => /\.(b|b1|b2|f1b|f2b)$/.test(n) && !/ln\d?\.b$|^out\.ln\.b$/.test(n));
    expect(biases.length).toBeGreaterThan(8);
    for (const name of biases) {
      const original = random.members[0]![name]!;
      // Not a constant shift: a layer norm downstream would take that out again.
      const n = original.size;
      random.members[0]![name] = tf.add(original, tf.tensor(Float32Array.from({ length: n }, (_, i) => ((i * 7) % 5) * 0.3 - 0.6), original.shape));
      const after = correctAnswers(random, state, questions).flat();
      random.members[0]![name] = original;
      expect(after.some((x, i) => Math.abs(x - before[i]!) > 1e-6), name).toBe(true);
    }
  });

  it('reads at most the first READER_STATE_TOKENS tokens of a state', () => {
    const long = text(READER_STATE_TOKENS + 40, 31);
    const head = { tokens: long.tokens.subarray(0, READER_STATE_TOKENS * INPUT), n: READER_STATE_TOKENS, ids: long.ids.slice(0, READER_STATE_TOKENS) };
    expect(readerState(long).n).toBe(READER_STATE_TOKENS);
    const q: AnsweredQuestion[] = [{ type: 'noul', instructions: text(3, 32), lines: [text(0, 1), text(0, 2)], probabilities: [0.3] }];
    expect(correctAnswers(random, long, q)).toEqual(correctAnswers(random, head, q));
    const short = text(12, 33);
    expect(readerState(short)).toBe(short);
  });

  it('reads a noul answer of the heads and a distribution as log-probabilities', () => {
    expect(baseOf('noul', [0.5])).toEqual([Math.log(0.5), Math.log(0.5)]);
    const [y, n] = baseOf('noul', [1]);
    expect(Number.isFinite(y) && Number.isFinite(n!)).toBe(true);
    expect(y! - n!).toBeGreaterThan(10);
    expect(baseOf('choice', [0.25, 0.75])).toEqual([Math.log(0.25), Math.log(0.75)]);
  });
});
