// Our WebAssembly matrix product (src/kernels/gemm.wat, gemm.ts): exact to a fixed summation
// order, the same for a row whatever rows share its call, and assembled from the source in
// the repository.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleWat, kernelFiles, kernelModule, KERNELS_DIR } from '../scripts/assemble-kernels.mjs';
import { initBackend } from '../src/encoder/backend.js';
import { dense, gemmReady, gemmUnavailableReason, packDense, packRows, packTransposed, paddedBias, roundUp8 } from '../src/kernels/gemm.js';

/** gemm.wat's B layout in plain JavaScript: `kernel` [k, n] as panels of 8 columns, each k rows of 8. */
function packColumns(kernel: Float32Array, k: number, n: number): Float32Array {
  const out = new Float32Array(k * n);
  for (let p = 0; p < n / 8; p++) for (let r = 0; r < k; r++) out.set(kernel.subarray(r * n + p * 8, r * n + p * 8 + 8), (p * k + r) * 8);
  return out;
}

/** The kernel's arithmetic in plain JavaScript: bias, then each product added in order of k, in float32. */
function reference(x: Float32Array, w: Float32Array, b: Float32Array, m: number, k: number, n: number, relu: boolean): Float32Array {
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = b[j]!;
      for (let r = 0; r < k; r++) s = Math.fround(s + Math.fround(x[i * k + r]! * w[r * n + j]!));
      out[i * n + j] = relu && s < 0 ? 0 : s;
    }
  }
  return out;
}

const floats = (length: number) => fc.float32Array({ minLength: length, maxLength: length, min: -4, max: 4, noNaN: true, noDefaultInfinity: true });

function run(x: Float32Array, w: Float32Array, b: Float32Array, m: number, k: number, n: number, relu: boolean): Float32Array {
  return tf.tidy(() => {
    const packed = packDense(tf.tensor2d(w, [k, n]), tf.tensor1d(b));
    return dense(tf.tensor2d(x, [m, k]), packed, relu).dataSync() as Float32Array;
  });
}

beforeAll(async () => {
  await initBackend('wasm');
});

describe('the gemm kernel', () => {
  it('initialises on the wasm backend', () => {
    expect(gemmReady(), gemmUnavailableReason()).toBe(true);
  });

  it('computes every element as the reference order does, bit for bit (4-row tiles and the last rows alike)', () => {
    const shapes = fc.record({ m: fc.integer({ min: 0, max: 11 }), k: fc.integer({ min: 1, max: 40 }), panels: fc.integer({ min: 1, max: 4 }), relu: fc.boolean() });
    fc.assert(
      fc.property(
        shapes.chain(({ m, k, panels, relu }) => fc.tuple(fc.constant({ m, k, n: 8 * panels, relu }), floats(m * k), floats(k * 8 * panels), floats(8 * panels))),
        ([{ m, k, n, relu }, x, w, b]) => {
          const ours = run(x, w, b, m, k, n, relu);
          const want = reference(x, w, b, m, k, n, relu);
          expect(ours.length).toBe(want.length);
          ours.forEach((v, i) => expect(Object.is(v, want[i]) || (v === 0 && want[i] === 0)).toBe(true));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives a row the same values whatever rows share the call", () => {
    const k = 33;
    const n = 24;
    const x = Float32Array.from({ length: 9 * k }, (_, i) => Math.sin(i));
    const w = Float32Array.from({ length: k * n }, (_, i) => Math.cos(i * 0.7));
    const b = Float32Array.from({ length: n }, (_, i) => i / 10 - 1);
    const all = run(x, w, b, 9, k, n, false);
    for (let row = 0; row < 9; row++) {
      const alone = run(x.subarray(row * k, (row + 1) * k), w, b, 1, k, n, false);
      expect([...alone]).toEqual([...all.subarray(row * n, (row + 1) * n)]);
    }
  });

  it('agrees with tf.matMul on the encoder\'s shapes', () => {
    const diff = tf.tidy(() => {
      const x = tf.randomNormal([70, 512], 0, 1, 'float32', 1) as tf.Tensor2D;
      const w = tf.randomNormal([512, 1536], 0, 0.05, 'float32', 2) as tf.Tensor2D;
      const b = tf.randomNormal([1536], 0, 1, 'float32', 3) as tf.Tensor1D;
      const ours = dense(x, packDense(w, b), true);
      return tf.max(tf.abs(tf.sub(ours, tf.relu(tf.add(tf.matMul(x, w), b))))).dataSync()[0]!;
    });
    expect(diff).toBeLessThan(1e-4);
  });

  it('keeps NaN and clamps at zero only with relu', () => {
    const out = run(Float32Array.of(NaN, 1, -2, 1), Float32Array.from({ length: 16 }, () => 1), new Float32Array(8), 2, 2, 8, true);
    expect(Number.isNaN(out[0])).toBe(true);
    expect(out[8]).toBe(0);
    expect(run(Float32Array.of(-2, 1), Float32Array.from({ length: 16 }, () => 1), new Float32Array(8), 1, 2, 8, false)[0]).toBe(-1);
  });

  it('steps aside on another backend, and serves again on wasm', async () => {
    await import('@tensorflow/tfjs-backend-cpu');
    try {
      await tf.setBackend('cpu');
      expect(gemmReady()).toBe(false);
      expect(gemmUnavailableReason()).toContain('cpu');
    } finally {
      await tf.setBackend('wasm');
    }
    expect(gemmReady()).toBe(true);
  });

  it('refuses shapes it cannot serve', () => {
    expect(() => tf.tidy(() => void packDense(tf.zeros([3, 4]) as tf.Tensor2D, tf.zeros([4]) as tf.Tensor1D))).toThrow(RangeError);
    expect(() => tf.tidy(() => dense(tf.zeros([2, 5]) as tf.Tensor2D, packDense(tf.zeros([4, 8]) as tf.Tensor2D, tf.zeros([8]) as tf.Tensor1D)))).toThrow(RangeError);
  });
});

describe('packing B on the backend', () => {
  const matrix = (rows: number, cols: number) => Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 1.3) * 3);

  it('lays out rows as the host packing does, the rows past the matrix zero', () => {
    for (const [rows, n, padded] of [[5, 16, 5], [5, 16, 8], [1, 8, 3], [13, 24, 16]] as const) {
      const x = matrix(rows, n);
      const onBackend = tf.tidy(() => packRows(tf.tensor2d(x, [rows, n]), padded).dataSync() as Float32Array);
      const host = new Float32Array(padded * n);
      host.set(x);
      expect([...onBackend]).toEqual([...packColumns(host, padded, n)]);
    }
  });

  it('lays out the transpose, the columns past the matrix zero', () => {
    for (const [count, k] of [[1, 4], [7, 3], [8, 5], [13, 9]] as const) {
      const x = matrix(count, k);
      const onBackend = tf.tidy(() => packTransposed(tf.tensor2d(x, [count, k])).dataSync() as Float32Array);
      const n = roundUp8(count);
      const transposed = new Float32Array(k * n);
      for (let c = 0; c < count; c++) for (let r = 0; r < k; r++) transposed[r * n + c] = x[c * k + r]!;
      expect([...onBackend]).toEqual([...packColumns(transposed, k, n)]);
    }
  });

  it('gives x Wᵀ through a transposed packing, the padded columns at -Infinity', () => {
    const [m, count, k] = [6, 11, 20];
    const x = matrix(m, k);
    const w = matrix(count, k).map((v) => v / 7);
    const out = tf.tidy(() => {
      const b = { packed: packTransposed(tf.tensor2d(w, [count, k])), bias: tf.tensor1d(paddedBias(count)), k, n: roundUp8(count) };
      return dense(tf.tensor2d(x, [m, k]), b).dataSync() as Float32Array;
    });
    const n = roundUp8(count);
    for (let i = 0; i < m; i++) {
      for (let c = 0; c < n; c++) {
        if (c >= count) {
          expect(out[i * n + c]).toBe(-Infinity);
          continue;
        }
        let want = 0;
        for (let r = 0; r < k; r++) want = Math.fround(want + Math.fround(x[i * k + r]! * w[c * k + r]!));
        expect(out[i * n + c]).toBe(want);
      }
    }
  });
});

describe('the generated kernel modules', () => {
  it('hold the bytes of their .wat source (run `npm run kernels:build` after editing one)', async () => {
    const files = kernelFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const { wat, module } of files) {
      const bytes = await assembleWat(wat, readFileSync(path.join(KERNELS_DIR, wat), 'utf8'));
      expect(readFileSync(module, 'utf8'), `${path.basename(module)} is stale`).toBe(kernelModule(wat, bytes));
    }
  });
});
