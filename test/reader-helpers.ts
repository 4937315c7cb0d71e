/**
 * Helpers shared by the tests of the reader's optional terms (ordinal, field pair): a small shape,
 * members with random parameters, a loaded reader of them, synthetic encoded texts, and the
 * backend with the gradients training needs.
 */
import * as tf from '@tensorflow/tfjs-core';
import fc from 'fast-check';
import { initBackend } from '../src/encoder/backend.js';
import { DEFAULT_SHAPE, INPUT, paramShapes, type ReaderShape } from '../src/heads/reader/architecture.js';
import type { ReaderText } from '../src/heads/reader/batch.js';
import type { LoadedReader } from '../src/heads/reader/logits.js';
import { BUCKETS } from '../src/heads/reader/weights.js';
import { rng } from '../src/training/data.js';
import { registerGradients } from '../src/training/gradients.js';
import { registerPlainMatMulGradient } from '../src/training/reader/matmul-gradient.js';

export const SHAPE: ReaderShape = { ...DEFAULT_SHAPE, width: 32, heads: 4, ffn: 48, mlp: 16 };
export const size = (sh: readonly number[]) => sh.reduce((a, b) => a * b, 1);

/** Every parameter of a member, uniform in ±scale/2, seeded. */
export function randomValues(shape: ReaderShape, seed: number, scale = 0.6): Record<string, Float32Array> {
  const random = rng(seed);
  return Object.fromEntries(Object.entries(paramShapes(shape)).map(([n, sh]) => [n, Float32Array.from({ length: size(sh) }, () => (random() - 0.5) * scale)]));
}

/** A loaded reader of these members, every temperature 1. */
export function readerOf(members: Record<string, Float32Array>[], shape = SHAPE): LoadedReader {
  const shapes = paramShapes(shape);
  return {
    shape,
    members: members.map((v) => Object.fromEntries(Object.entries(shapes).map(([n, sh]) => [n, tf.tensor(v[n]!, sh)]))),
    temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1])),
  };
}

/** An encoded text of n tokens, deterministic in its seed, ids from a small vocabulary so exact matches occur. */
export function text(n: number, seed: number): ReaderText {
  const tokens = Float32Array.from({ length: n * INPUT }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) * 2 + Math.cos(seed + i * 0.013));
  return { tokens, n, ids: Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 23) };
}
export const textArb = (min: number) => fc.record({ n: fc.integer({ min, max: 9 }), seed: fc.integer({ min: 1, max: 5000 }) }).map(({ n, seed }) => text(n, seed));

/** The wasm backend with the gradient kernels training registers. */
export async function trainingBackend(): Promise<void> {
  await initBackend('wasm');
  await registerGradients();
  registerPlainMatMulGradient();
}
