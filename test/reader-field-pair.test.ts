/**
 * The reader's field-pair term (architecture.ts, ((FIELD_PAIR_BASE + a) . [c, 1]) g_k per outcome line): exactly 0
 * for a question that compares no fields, at its initialisation and in a weight file written
 * before it existed (the shipped reader answers as before); option order and rubric reversal
 * keep their exact symmetries with it; and it learns what nothing else in the reader can see:
 * how alike the two fields a question compares are.
 */
import * as tf from '@tensorflow/tfjs-core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIELD_PAIR, INPUT, initOf, ORDINAL, paramShapes, type ReaderShape } from '../src/heads/reader/architecture.js';
import type { ReaderQuestion, ReaderText } from '../src/heads/reader/batch.js';
import { readerLogits } from '../src/heads/reader/logits.js';
import { BUCKETS, decodeParams, encodeParams, type ReaderManifest } from '../src/heads/reader/weights.js';
import { sha256Hex } from '../src/heads/sha256.js';
import { rng } from '../src/training/data.js';
import type { ReaderExample } from '../src/training/reader/examples.js';
import { batchLoss } from '../src/training/reader/loop.js';
import { continueFrom, initParams } from '../src/training/reader/train.js';
import { randomValues, readerOf, SHAPE, size, text, textArb, trainingBackend } from './reader-helpers.js';


/** The same member with the field-pair term's parameters at zero. */
const withoutTerm = (v: Record<string, Float32Array>) => Object.fromEntries(Object.entries(v).map(([n, x]) => [n, n.startsWith(FIELD_PAIR) ? new Float32Array(x.length) : x]));

beforeAll(trainingBackend);

describe('field-pair term', () => {
  it('is exactly 0 without a pair, at its initialisation, and in a weight file written without it', () => {
    const trained = randomValues(SHAPE, 7);
    const state = text(17, 3);
    const questions: ReaderQuestion[] = [
      { type: 'score', instructions: text(4, 10), lines: [text(2, 20), text(3, 21), text(1, 22)], fieldPair: 0.83 },
      { type: 'choice', instructions: text(5, 11), lines: [text(2, 23), text(4, 24)], fieldPair: 0.31 },
      { type: 'choice', instructions: text(3, 12), lines: [text(2, 25), text(2, 26), text(3, 27)] },
    ];
    const before = readerLogits(readerOf([withoutTerm(trained)]), state, questions);
    // With trained coefficients the term moves the pair questions only.
    const withTerm = readerLogits(readerOf([trained]), state, questions);
    expect(withTerm[0]).not.toEqual(before[0]);
    expect(withTerm[1]).not.toEqual(before[1]);
    expect(withTerm[2]).toEqual(before[2]);
    // Without the pair inputs, the trained term is 0 again.
    expect(readerLogits(readerOf([trained]), state, questions.map(({ fieldPair: _, ...q }) => q))).toEqual(before);

    // Initialised as training starts it: g's last layer at zero, the coefficients at their base.
    const initialised = { ...trained };
    let seed = 40;
    for (const [n, sh] of Object.entries(paramShapes(SHAPE))) {
      if (!n.startsWith(FIELD_PAIR)) continue;
      const how = initOf(n, sh);
      initialised[n] = how === 'zeros' ? new Float32Array(size(sh)) : how === 'ones' ? new Float32Array(size(sh)).fill(1) : (tf.randomNormal(sh, 0, how, 'float32', seed++).dataSync() as Float32Array);
    }
    expect(initialised['pair.g.w1']!.some((x) => x !== 0)).toBe(true); // g's hidden layer is live: its last layer gets a gradient
    expect(initialised['pair.g.w2']!.every((x) => x === 0)).toBe(true);
    expect(readerLogits(readerOf([initialised]), state, questions)).toEqual(before);

    // TRAIN_INIT from a run without the term: its parameters are taken, the term's keep their init.
    const params = initParams(SHAPE, 11);
    const earlier = Object.fromEntries(Object.entries(trained).filter(([n]) => !n.startsWith(FIELD_PAIR)).map(([n, v]) => [n, Array.from(v)]));
    expect(continueFrom(params, earlier).sort()).toEqual(Object.keys(paramShapes(SHAPE)).filter((n) => n.startsWith(FIELD_PAIR)).sort());
    const continued = readerOf([Object.fromEntries(Object.entries(params).map(([n, v]) => [n, v.dataSync() as Float32Array]))]);
    expect(readerLogits(continued, state, questions)).toEqual(before);
    tf.dispose(Object.values(params));

    // A file of the table without the term (as shipped before it): its manifest has no `fieldPair`.
    const shapes = paramShapes(SHAPE);
    const legacy = Object.fromEntries(Object.entries(trained).filter(([n]) => !n.startsWith(FIELD_PAIR)));
    const full = encodeParams(SHAPE, [trained]);
    const legacyBytes = new Uint16Array(Object.entries(shapes).filter(([n]) => !n.startsWith(FIELD_PAIR)).reduce((s, [, sh]) => s + size(sh), 0));
    const fullHalves = new Uint16Array(full.buffer);
    let at = 0;
    let out = 0;
    for (const [n, sh] of Object.entries(shapes)) {
      if (!n.startsWith(FIELD_PAIR)) legacyBytes.set(fullHalves.subarray(at, at + size(sh)), out), (out += size(sh));
      at += size(sh);
    }
    const bytes = new Uint8Array(legacyBytes.buffer);
    const manifest: ReaderManifest = { format: 'evalmodel-reader/1', weights: 'x.bin', sha256: sha256Hex(bytes), dtype: 'float16', shape: SHAPE, ordinal: true, members: 1, temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1])) };
    const [decoded] = decodeParams(manifest, bytes);
    for (const n of Object.keys(shapes)) if (n.startsWith(FIELD_PAIR)) expect(decoded![n]!.every((x) => x === 0)).toBe(true);
    const [rounded] = decodeParams({ ...manifest, fieldPair: true, sha256: sha256Hex(full) }, full);
    for (const n of Object.keys(legacy)) expect(decoded![n]).toEqual(rounded![n]);
    expect(readerLogits(readerOf([decoded!]), state, questions)).toEqual(readerLogits(readerOf([withoutTerm(rounded!)]), state, questions));
    // The flag names what the file holds: claiming the term on a file without it fails.
    expect(() => decodeParams({ ...manifest, fieldPair: true }, bytes)).toThrow(/bytes/);
    expect(ORDINAL).not.toEqual(FIELD_PAIR);
  });

  it('keeps option order and rubric reversal exact with a pair', () => {
    const reader = readerOf([randomValues(SHAPE, 5), randomValues(SHAPE, 6)]);
    fc.assert(
      fc.property(textArb(0), textArb(1), fc.array(textArb(0), { minLength: 2, maxLength: 7 }), fc.double({ min: -0.3, max: 1, noNaN: true }), (state, instructions, lines, fieldPair) => {
        const rubric: ReaderQuestion = { type: 'score', instructions, lines, fieldPair };
        const reversed: ReaderQuestion = { ...rubric, lines: [...lines].reverse() };
        const [a, b] = readerLogits(reader, state, [rubric, reversed]);
        expect([...b!].reverse()).toEqual(a);
        const options: ReaderQuestion = { type: 'choice', instructions, lines, fieldPair };
        const rotated: ReaderQuestion = { ...options, lines: [...lines.slice(1), lines[0]!] };
        const [c, d] = readerLogits(reader, state, [options, rotated]);
        expect([...c!.slice(1), c![0]]).toEqual(d);
      }),
      { numRuns: 25, seed: 23 },
    );
  });

  it('learns how alike the compared fields are, which nothing else in the reader sees', () => {
    // Every case has the same state, instructions and options ("the same text", "another text");
    // only the pair's cosine tells a copy (about 0.95) from an unrelated text (about 0.3). Without
    // the term the reader gives every case the same logits: its loss stays at ln 2.
    const r = rng(4);
    const line = (seed: number): ReaderText => ({ tokens: Float32Array.from({ length: 2 * INPUT }, () => (r() - 0.5) * 2 + seed), n: 2, ids: [seed, seed + 1] });
    const state = line(1);
    const instructions = line(3);
    const same = line(5);
    const other = line(7);
    const random = rng(9);
    const examples: ReaderExample[] = Array.from({ length: 16 }, (_, i) => {
      const copy = i % 2 === 0;
      const swap = i % 4 >= 2;
      const fieldPair = (copy ? 0.95 : 0.3) + ((i % 3) - 1) * 0.02;
      return {
        id: `p${i}`,
        source: 'synthetic',
        state,
        items: [{ type: 'choice', instructions, lines: swap ? [other, same] : [same, other], gold: copy !== swap ? 0 : 1, weight: 1, fieldPair }],
      };
    });
    const small: ReaderShape = { width: 16, heads: 2, layers: 1, ffn: 16, mlp: 8 };
    const fit = (term: boolean): number => {
      const params = initParams(small, 300);
      const trainable = Object.entries(params).filter(([n]) => term || !n.startsWith(FIELD_PAIR)).map(([, v]) => v);
      const optimizer = tf.train.adam(1e-2);
      let loss = Infinity;
      for (let step = 0; step < 40; step++) {
        const l = optimizer.minimize(() => batchLoss(params, small, examples, 0, random), true, trainable)!;
        loss = l.dataSync()[0]!;
        l.dispose();
      }
      tf.dispose(Object.values(params));
      return loss;
    };
    const without = fit(false);
    const withTerm = fit(true);
    console.log(`field-pair overfit: loss ${withTerm.toFixed(3)} with the term, ${without.toFixed(3)} without (ln 2 = 0.693)`);
    expect(without).toBeGreaterThan(0.65);
    expect(withTerm).toBeLessThan(0.35);
  }, 300_000);
});
