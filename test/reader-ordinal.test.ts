/**
 * The reader's ordinal score term (architecture.ts, s * d * p_k): exactly mirror-equivariant
 * with any parameters, exactly 0 at its initialisation and in a weight file written before it
 * existed (the shipped reader answers as before), and able to learn what the independent
 * per-level readout cannot: which of two levels with the same words, on either side of the
 * middle, the state points to.
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


/** The same member with the ordinal term's parameters at zero. */
const withoutOrdinal = (v: Record<string, Float32Array>) => Object.fromEntries(Object.entries(v).map(([n, x]) => [n, n.startsWith(ORDINAL) ? new Float32Array(x.length) : x]));

beforeAll(trainingBackend);

describe('ordinal score term', () => {
  it('a reversed rubric gives exactly the reversed logits, with the term alone and with everything', () => {
    // The independent readout's last layer at zero and no base: the logits are the bounded term alone.
    const full = randomValues(SHAPE, 5);
    const termOnly = readerOf([{ ...full, 'score.w2': new Float32Array(SHAPE.mlp) }]);
    const everything = readerOf([full, randomValues(SHAPE, 6)]);
    let moved = 0;
    fc.assert(
      fc.property(textArb(0), textArb(1), fc.array(textArb(0), { minLength: 2, maxLength: 9 }), (state, instructions, lines) => {
        const rubric: ReaderQuestion = { type: 'score', instructions, lines };
        const reversed: ReaderQuestion = { type: 'score', instructions, lines: [...lines].reverse() };
        for (const reader of [termOnly, everything]) {
          const [a, b] = readerLogits(reader, state, [rubric, reversed]);
          expect([...b!].reverse()).toEqual(a);
          // Alone, in a batch of its own: the same bits again.
          expect(readerLogits(reader, state, [reversed])[0]).toEqual(b);
        }
        const [term] = readerLogits(termOnly, state, [rubric]);
        if (term!.some((x) => x !== 0)) moved++;
      }),
      { numRuns: 25, seed: 21 },
    );
    // Not vacuous: the term moves the logits of most rubrics (those whose level texts differ).
    expect(moved).toBeGreaterThan(12);
  });

  it('is exactly 0 at its initialisation, and in a weight file written without it', () => {
    const trained = randomValues(SHAPE, 7);
    const initialised = { ...trained };
    let seed = 40;
    for (const [n, sh] of Object.entries(paramShapes(SHAPE))) {
      if (!n.startsWith(ORDINAL)) continue;
      const how = initOf(n, sh);
      initialised[n] = how === 'zeros' ? new Float32Array(size(sh)) : how === 'ones' ? new Float32Array(size(sh)).fill(1) : (tf.randomNormal(sh, 0, how, 'float32', seed++).dataSync() as Float32Array);
    }
    expect(initialised['ord.h.w2']!.some((x) => x !== 0)).toBe(true); // h starts random: no saddle
    const state = text(17, 3);
    const questions: ReaderQuestion[] = [3, 5, 2].map((k, i) => ({ type: 'score', instructions: text(4, 10 + i), lines: Array.from({ length: k }, (_, j) => text(1 + j, 20 + 7 * i + j)) }));
    const before = readerLogits(readerOf([withoutOrdinal(trained)]), state, questions);
    expect(readerLogits(readerOf([initialised]), state, questions)).toEqual(before);

    // TRAIN_INIT from a run without the term: its parameters are taken, the term's keep their init.
    const params = initParams(SHAPE, 11);
    const earlier = Object.fromEntries(Object.entries(trained).filter(([n]) => !n.startsWith(ORDINAL)).map(([n, v]) => [n, Array.from(v)]));
    const fresh = continueFrom(params, earlier);
    expect(fresh.sort()).toEqual(Object.keys(paramShapes(SHAPE)).filter((n) => n.startsWith(ORDINAL)).sort());
    const continued = readerOf([Object.fromEntries(Object.entries(params).map(([n, v]) => [n, v.dataSync() as Float32Array]))]);
    expect(readerLogits(continued, state, questions)).toEqual(before);
    tf.dispose(Object.values(params));

    // A file of the table without the ordinal parameters (as shipped before them, and before the
    // field-pair term that follows them in the table), manifest without `ordinal`.
    const shapes = paramShapes(SHAPE);
    const legacy = Object.entries(shapes).filter(([n]) => !n.startsWith(ORDINAL) && !n.startsWith(FIELD_PAIR));
    const halves = new Uint16Array(encodeParams(SHAPE, [trained]).buffer);
    const bytes = new Uint8Array(halves.slice(0, legacy.reduce((s, [, sh]) => s + size(sh), 0)).buffer);
    const manifest: ReaderManifest = { format: 'evalmodel-reader/1', weights: 'x.bin', sha256: sha256Hex(bytes), dtype: 'float16', shape: SHAPE, members: 1, temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1])) };
    const [decoded] = decodeParams(manifest, bytes);
    for (const [n] of Object.entries(shapes)) if (n.startsWith(ORDINAL)) expect(decoded![n]!.every((x) => x === 0)).toBe(true);
    const roundedOld = readerOf([decoded!]);
    const roundedNoTerm = readerOf([withoutOrdinal(decodeParams({ ...manifest, ordinal: true, fieldPair: true, sha256: sha256Hex(encodeParams(SHAPE, [trained])) }, encodeParams(SHAPE, [trained]))[0]!)]);
    expect(readerLogits(roundedOld, state, questions)).toEqual(readerLogits(roundedNoTerm, state, questions));
    // The flag names what the file holds: claiming the term on a file without it fails.
    expect(() => decodeParams({ ...manifest, ordinal: true }, bytes)).toThrow(/bytes/);
  });

  it('learns which side of the middle the state points to, where the independent readout cannot', () => {
    // Five levels: a "low" and a "high" anchor at the ends (in either order), the same words at
    // both levels beside the middle, and a middle word. The state carries a grade 0..4; the gold
    // is the level at that grade counted from the low anchor. Levels 1 and 3 have the same words
    // and the same distance from the middle, so the independent readout gives them the same
    // logit: grades 1 and 3 cost it at least ln 2 each.
    const dim = (k: number, n: number, value: number, seed: number): ReaderText => {
      const r = rng(seed);
      const tokens = new Float32Array(n * INPUT);
      for (let i = 0; i < tokens.length; i++) tokens[i] = (r() - 0.5) * 0.2;
      for (let t = 0; t < n; t++) tokens[t * INPUT + k * 8] = value;
      return { tokens, n, ids: Array.from({ length: n }, (_, t) => 1000 * k + t) };
    };
    const low = dim(1, 2, 3, 1);
    const high = dim(2, 2, 3, 2);
    const beside = dim(3, 2, 3, 3);
    const middle = dim(4, 2, 3, 4);
    const instructions = dim(5, 3, 3, 5);
    const random = rng(9);
    const examples: ReaderExample[] = Array.from({ length: 40 }, (_, i) => {
      const grade = i % 5;
      const reversed = i % 10 >= 5;
      const levels = [low, beside, middle, beside, high];
      return {
        id: `o${i}`,
        source: 'synthetic',
        state: dim(6, 6, (grade - 2) * 1.5, 100 + i),
        items: [{ type: 'score', instructions, lines: reversed ? [...levels].reverse() : levels, gold: reversed ? 4 - grade : grade, weight: 1 }],
      };
    });
    const shape: ReaderShape = { ...SHAPE, width: 32, mlp: 32 };
    const fit = (ordinal: boolean): number => {
      const params = Object.fromEntries(
        Object.entries(paramShapes(shape)).map(([n, sh], k) => {
          const how = initOf(n, sh);
          return [n, tf.variable(how === 'zeros' ? tf.zeros(sh) : how === 'ones' ? tf.ones(sh) : tf.randomNormal(sh, 0, how, 'float32', 300 + k))];
        }),
      );
      const trainable = Object.entries(params).filter(([n]) => ordinal || !n.startsWith(ORDINAL)).map(([, v]) => v);
      const optimizer = tf.train.adam(1e-2);
      let loss = Infinity;
      for (let step = 0; step < 60; step++) {
        const l = optimizer.minimize(() => batchLoss(params, shape, examples, 0, random), true, trainable)!;
        loss = l.dataSync()[0]!;
        l.dispose();
      }
      tf.dispose(Object.values(params));
      return loss;
    };
    const independent = fit(false);
    const withTerm = fit(true);
    console.log(`ordinal overfit: loss ${withTerm.toFixed(3)} with the term, ${independent.toFixed(3)} without (floor 2/5 ln 2 = 0.277)`);
    expect(independent).toBeGreaterThan(0.25);
    expect(withTerm).toBeLessThan(0.5 * independent);
  }, 120_000);
});
