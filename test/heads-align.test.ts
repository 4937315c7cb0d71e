// Alignment (src/heads/align-kernel.ts) keeps memory linear in the state: phrase spans summed
// over their own tokens instead of a dense spans x tokens product, and the similarity matrix in
// blocks of text-token rows. Neither may change a value.
import fc from 'fast-check';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/encoder/backend.js';
import { dense, gemmReady, packRows, roundUp8, setGemmEnabled } from '../src/kernels/gemm.js';
import { spanMatrix, spanMeans } from '../src/heads/align-kernel.js';
import { alignTexts } from '../src/heads/late.js';
import { seeded, text } from './random-text.js';


const starts = (n: number) => {
  const out: number[] = [];
  for (let st = 0; st === 0 || st + 6 < n; st += 6) out.push(st);
  return out;
};

beforeAll(async () => {
  await initBackend();
});

describe('alignment memory bounds', () => {
  it('sums phrase spans over their own tokens bit for bit as the dense product on our kernel did', () => {
    expect(gemmReady()).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 1e6 }), (n, seed) => {
        const width = 16;
        const r = seeded(seed);
        const states = Float32Array.from({ length: n * width }, () => r() * 4);
        const st = starts(n);
        const padded = roundUp8(n);
        const reference = tf.tidy(() => {
          const packed = { packed: packRows(tf.tensor2d(states, [n, width]), padded), bias: tf.zeros([width]) as tf.Tensor1D, k: padded, n: width };
          return dense(tf.tensor2d(spanMatrix(st, 12, n, padded), [st.length, padded]), packed).dataSync() as Float32Array;
        });
        expect(Array.from(spanMeans(states, n, width, st, 12))).toEqual(Array.from(reference));
      }),
      { numRuns: 40 },
    );
  });

  it('gives the same alignment, bit for bit, whatever the block of rows, and keeps no tensor', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 1e6 }),
        (stateTokens, lengths, cells, seed) => {
          const state = text(seed, stateTokens);
          const texts = lengths.map((n, i) => text(seed * 7 + i + 1, n));
          const whole = alignTexts(state, texts);
          const before = tf.memory().numTensors;
          const blocks = alignTexts(state, texts, cells);
          expect(tf.memory().numTensors).toBe(before);
          blocks.forEach((b, i) => {
            const w = whole[i]!;
            for (const key of ['aligned', 'best', 'soft', 'exact', 'negAtt'] as const) expect(Array.from(b[key])).toEqual(Array.from(w[key]));
            expect(b.fixed).toEqual(w.fixed);
          });
        },
      ),
      { numRuns: 25 },
    );
  });

  it("keeps tfjs' own products (no kernel) in blocks too", () => {
    setGemmEnabled(false);
    try {
      const state = text(5, 150);
      const texts = [text(6, 20), text(7, 3)];
      const whole = alignTexts(state, texts);
      const blocks = alignTexts(state, texts, 150 * 4);
      blocks.forEach((b, i) => expect(Array.from(b.aligned)).toEqual(Array.from(whole[i]!.aligned)));
    } finally {
      setGemmEnabled(true);
    }
  });
});
