/**
 * The encoder's matrix products two ways on this machine: tfjs' fused matMul (XNNPACK in the
 * wasm backend) and our kernel (src/kernels/gemm.wat), for the shapes of the encoder's dense
 * layers and the row counts a window or one side of the row split gives them. Prints GFLOP/s
 * (median of repeated runs, results read back) and the ratio.
 *
 *   node dist/bench/speed/gemm.js
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/encoder/backend.js';
import { dense, gemmReady, gemmUnavailableReason, packDense } from '../../src/kernels/gemm.js';
import { median } from './report.js';

/** [in, out] of the encoder's products: layer-1 query/key/value per head, output, FFN in, FFN out. */
const SHAPES = [
  [512, 64],
  [512, 512],
  [512, 1536],
  [1536, 512],
] as const;
const ROWS = [16, 46, 92, 128];

/** Median GFLOP/s of `product`, with its result read back and freed each time. */
function rate(flops: number, product: () => tf.Tensor): number {
  const once = () => {
    const out = product();
    out.dataSync();
    out.dispose();
  };
  for (let i = 0; i < 5; i++) once();
  const reps = Math.max(15, Math.round(3e9 / flops));
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    once();
    times.push(performance.now() - start);
  }
  return flops / (median(times) * 1e6);
}

await initBackend('wasm');
if (!gemmReady()) throw new Error(`our kernel is not available: ${gemmUnavailableReason()}`);
console.log('shape (rows x in x out)   fused matMul   ours   ratio (GFLOP/s, one core)');
const ratios: number[] = [];
for (const [k, n] of SHAPES) {
  const w = tf.randomNormal([k, n], 0, 0.05) as tf.Tensor2D;
  const b = tf.randomNormal([n]) as tf.Tensor1D;
  const packed = packDense(w, b);
  for (const m of ROWS) {
    const x = tf.randomNormal([m, k]) as tf.Tensor2D;
    const flops = 2 * m * k * n;
    const theirs = rate(flops, () => tf.fused.matMul({ a: x, b: w, bias: b, activation: 'relu' }));
    const ours = rate(flops, () => dense(x, packed, true));
    ratios.push(ours / theirs);
    console.log(`${`${m} x ${k} x ${n}`.padEnd(26)}${theirs.toFixed(1).padStart(12)}${ours.toFixed(1).padStart(7)}${(ours / theirs).toFixed(2).padStart(7)}x`);
    x.dispose();
  }
  tf.dispose([w, b, packed.packed, packed.bias]);
}
console.log(`median ratio ${median(ratios).toFixed(2)}x`);
