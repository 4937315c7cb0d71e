/**
 * The reader's invariants, by construction and on random parameters: a question's logits never
 * depend on the other questions of its batch (nor on chunking), choice logits follow their
 * options under any permutation, a reversed rubric mirrors the score logits, swapping noul
 * criteria negates the logit; and the fp16 weight format round-trips and refuses bad files.
 */
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE, INPUT, paramShapes, type ReaderShape } from '../src/heads/reader/architecture.js';
import type { ReaderQuestion, ReaderText } from '../src/heads/reader/batch.js';
import { chunkQuestions, readerLogits, type LoadedReader } from '../src/heads/reader/logits.js';
import { BUCKETS, decodeParams, encodeParams, fromHalf, toHalf, type ReaderManifest } from '../src/heads/reader/weights.js';
import { sha256Hex } from '../src/heads/sha256.js';

const SHAPE: ReaderShape = { ...DEFAULT_SHAPE, width: 32, heads: 4, ffn: 48, mlp: 16 };

function randomValues(shape: ReaderShape, seed: number): Record<string, Float32Array> {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  return Object.fromEntries(Object.entries(paramShapes(shape)).map(([n, sh]) => [n, Float32Array.from({ length: sh.reduce((a, b) => a * b, 1) }, () => next() * 0.6)]));
}

function readerOf(members: Record<string, Float32Array>[]): LoadedReader {
  const shapes = paramShapes(SHAPE);
  return {
    shape: SHAPE,
    members: members.map((v) => Object.fromEntries(Object.entries(shapes).map(([n, sh]) => [n, tf.tensor(v[n]!, sh)]))),
    temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1])),
  };
}

/** A text of n tokens with ids from a small vocabulary (so exact matches happen). */
function text(n: number, seed: number): ReaderText {
  const tokens = Float32Array.from({ length: n * INPUT }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) * 2);
  return { tokens, n, ids: Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 23) };
}

const textArb = fc.record({ n: fc.integer({ min: 0, max: 9 }), seed: fc.integer({ min: 1, max: 1000 }) }).map(({ n, seed }) => text(n, seed));
const questionArb: fc.Arbitrary<ReaderQuestion> = fc.oneof(
  fc.record({ type: fc.constant('noul' as const), instructions: textArb, lines: fc.tuple(textArb, textArb).map((t) => [...t]) }),
  fc.record({ type: fc.constant('choice' as const), instructions: textArb, lines: fc.array(textArb, { minLength: 2, maxLength: 6 }) }),
  fc.record({ type: fc.constant('score' as const), instructions: textArb, lines: fc.array(textArb, { minLength: 2, maxLength: 6 }) }),
);

let reader: LoadedReader;
beforeAll(async () => {
  await tf.setBackend('cpu');
  reader = readerOf([randomValues(SHAPE, 3), randomValues(SHAPE, 4)]);
});

const close = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < 1e-4);

describe('reader logits', () => {
  it("a question's logits do not depend on the other questions of its batch", () => {
    fc.assert(
      fc.property(textArb, fc.array(questionArb, { minLength: 1, maxLength: 5 }), (state, qs) => {
        const together = readerLogits(reader, state, qs);
        qs.forEach((q, i) => expect(close(readerLogits(reader, state, [q])[0]!, together[i]!)).toBe(true));
      }),
      { numRuns: 25 },
    );
  });

  it('choice logits follow their options under a permutation; score logits mirror a reversed rubric', () => {
    fc.assert(
      fc.property(textArb, textArb, fc.array(textArb, { minLength: 2, maxLength: 6 }), (state, instructions, lines) => {
        const [choice, reversedChoice, score, reversedScore] = readerLogits(reader, state, [
          { type: 'choice', instructions, lines },
          { type: 'choice', instructions, lines: [...lines].reverse() },
          { type: 'score', instructions, lines },
          { type: 'score', instructions, lines: [...lines].reverse() },
        ]);
        expect(close([...reversedChoice!].reverse(), choice!)).toBe(true);
        expect(close([...reversedScore!].reverse(), score!)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('swapping noul criteria negates the logit; without criteria the instructions decide', () => {
    fc.assert(
      fc.property(textArb, textArb, textArb, textArb, (state, instructions, yes, no) => {
        fc.pre(yes.n > 0 || no.n > 0);
        const [a, b] = readerLogits(reader, state, [
          { type: 'noul', instructions, lines: [yes, no] },
          { type: 'noul', instructions, lines: [no, yes] },
        ]);
        expect(a![0]! + b![0]!).toBeCloseTo(0, 5);
      }),
      { numRuns: 25 },
    );
  });

  it('chunks keep every question and respect the row bound', () => {
    const qs = Array.from({ length: 40 }, (_, i): ReaderQuestion => ({ type: 'choice', instructions: text(5, i), lines: [text(60, i + 1), text(60, i + 2)] }));
    const chunks = chunkQuestions(qs, 4000, 4);
    expect(chunks.flat()).toEqual(qs.map((_, i) => i));
    expect(chunks.length).toBeGreaterThan(1);
  });
});

describe('reader weights', () => {
  it('fp16 round-trips every representable half exactly and rounds floats to the nearest', () => {
    for (let h = 0; h < 0x10000; h++) {
      const x = fromHalf(h);
      if (Number.isNaN(x)) continue;
      expect(toHalf(x)).toBe(h === 0x8000 ? 0x8000 : h);
    }
    fc.assert(
      fc.property(fc.float({ min: -60000, max: 60000, noNaN: true }), (x) => {
        const back = fromHalf(toHalf(x));
        expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.max(Math.abs(x) * 2 ** -11, 2 ** -25) + 1e-12);
      }),
    );
  });

  it('encodes and decodes members, and refuses a file that does not match its manifest', () => {
    const members = [randomValues(SHAPE, 1), randomValues(SHAPE, 2)];
    const bytes = encodeParams(SHAPE, members);
    const manifest: ReaderManifest = { format: 'evalmodel-reader/1', weights: 'x.bin', sha256: sha256Hex(bytes), dtype: 'float16', shape: SHAPE, ordinal: true, fieldPair: true, members: 2, temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1.5])) };
    const back = decodeParams(manifest, bytes);
    expect(back).toHaveLength(2);
    for (const [n, v] of Object.entries(members[1]!)) v.forEach((x, i) => expect(Math.abs(back[1]![n]![i]! - x)).toBeLessThan(1e-3));
    expect(() => decodeParams({ ...manifest, sha256: '0'.repeat(64) }, bytes)).toThrow(/hash/);
    expect(() => decodeParams({ ...manifest, members: 3 }, bytes)).toThrow(/bytes/);
    expect(() => decodeParams({ ...manifest, temperatures: {} }, bytes)).toThrow(/temperature/);
    expect(() => decodeParams({ ...manifest, shape: { ...SHAPE, heads: 5 } }, bytes)).toThrow(/multiple/);
  });
});
