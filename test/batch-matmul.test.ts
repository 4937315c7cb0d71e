/**
 * Our batched product (kernels/batch-matmul.ts) against tfjs' own, values and gradients, on the
 * wasm backend where it runs; and its fallback where n is not a multiple of 8.
 */
import * as tf from '@tensorflow/tfjs-core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/encoder/backend.js';
import { batchedProduct, bmm } from '../src/kernels/batch-matmul.js';
import { gemmReady } from '../src/kernels/gemm.js';
import { registerGradients } from '../src/training/gradients.js';

beforeAll(async () => {
  await initBackend('wasm');
  await registerGradients();
});

const maxDiff = (a: tf.Tensor, b: tf.Tensor) => tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!);

describe('batched product on our kernel', () => {
  it('runs on the wasm backend', () => {
    expect(gemmReady()).toBe(true);
  });

  it('equals tfjs products and their gradients for any batch, m, k and n a multiple of 8', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 13 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 3 }), fc.integer(), (B, m, k, n8, seed) => {
        tf.tidy(() => {
          const a = tf.randomUniform([B, m, k], -1, 1, 'float32', seed) as tf.Tensor3D;
          const b = tf.randomUniform([B, k, n8 * 8], -1, 1, 'float32', seed + 1) as tf.Tensor3D;
          const w = tf.randomUniform([B, m, n8 * 8], -1, 1, 'float32', seed + 2);
          expect(maxDiff(bmm(a, b), tf.matMul(a, b))).toBeLessThan(1e-4);
          const ours = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(bmm(x as tf.Tensor3D, y as tf.Tensor3D), w)))([a, b]);
          const theirs = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(tf.matMul(x as tf.Tensor3D, y as tf.Tensor3D), w)))([a, b]);
          expect(maxDiff(ours[0]!, theirs[0]!)).toBeLessThan(1e-4);
          expect(maxDiff(ours[1]!, theirs[1]!)).toBeLessThan(1e-4);
        });
      }),
      { numRuns: 30 },
    );
  });

  it('takes any leading axes, and falls back to tfjs where n is not a multiple of 8', () => {
    tf.tidy(() => {
      const a = tf.randomUniform([2, 3, 5, 7], -1, 1, 'float32', 1);
      const b = tf.randomUniform([2, 3, 7, 16], -1, 1, 'float32', 2);
      expect(maxDiff(batchedProduct(a, b), tf.matMul(a, b))).toBeLessThan(1e-4);
      const c = tf.randomUniform([2, 3, 7, 5], -1, 1, 'float32', 3);
      expect(maxDiff(batchedProduct(a, c), tf.matMul(a, c))).toBeLessThan(1e-4);
    });
  });
});
