/**
 * Do two threads of this machine compute as fast as one? The backend's fused matrix product
 * (the encoder's kernel) on one worker thread, then on two at once, for the row counts a
 * window or one side of the row split hands it: if the two-at-once rates match the alone rate,
 * the cores do not slow each other down and a split that falls short of 2x loses time elsewhere.
 * Also one side of the row split's products ([64, 28] rows of every encoder matrix) against the
 * whole pass ([128, 56] rows), alone and two at once.
 *
 *   node dist/bench/speed/threads.js
 * @module
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/encoder/backend.js';

/** [in, out] of the encoder's products per layer: query/key/value, output, FFN in, FFN out. */
const LAYERS = [
  [[256, 1536], [768, 512], [512, 1536], [1536, 512]],
  [[512, 1536], [512, 512], [512, 1536], [1536, 512]],
] as const;

type Job = { kind: 'rate'; rows: number } | { kind: 'pass'; windows: number[] };

/**
 * One fused product, read back and freed. Not tf.tidy(() => ....dataSync()): tidy walks a
 * returned typed array element by element, which costs more than the product itself.
 */
function product(a: tf.Tensor2D, b: tf.Tensor2D, bias: tf.Tensor): void {
  const out = tf.fused.matMul({ a, b, bias });
  out.dataSync();
  out.dispose();
}

async function run(job: Job): Promise<number> {
  // The engine's own backend set-up (it locates the wasm binaries in node_modules).
  await initBackend('wasm');
  if (job.kind === 'rate') {
    const [k, n] = [512, 1536];
    const a = tf.randomNormal([job.rows, k]) as tf.Tensor2D;
    const b = tf.randomNormal([k, n]) as tf.Tensor2D;
    const bias = tf.randomNormal([n]);
    const once = () => product(a, b, bias);
    for (let i = 0; i < 5; i++) once();
    const reps = Math.max(20, Math.round(8000 / job.rows));
    const start = performance.now();
    for (let i = 0; i < reps; i++) once();
    return (2 * job.rows * k * n * reps) / ((performance.now() - start) * 1e6); // GFLOP/s
  }
  const weights = LAYERS.map((layer) => layer.map(([k, n]) => ({ b: tf.randomNormal([k, n]) as tf.Tensor2D, bias: tf.randomNormal([n]) })));
  const inputs = job.windows.map((m) => weights.map((layer) => layer.map(({ b }) => tf.randomNormal([m, b.shape[0]]) as tf.Tensor2D)));
  const pass = () => inputs.forEach((perLayer) => perLayer.forEach((xs, l) => xs.forEach((a, i) => product(a, weights[l]![i]!.b, weights[l]![i]!.bias))));
  for (let i = 0; i < 3; i++) pass();
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const start = performance.now();
    pass();
    times.push(performance.now() - start);
  }
  return times.sort((x, y) => x - y)[7]!; // median ms
}

const spawn = (job: Job) => new Promise<number>((resolve, reject) => new Worker(new URL(import.meta.url), { workerData: job }).once('message', resolve).once('error', reject));
const both = (job: Job) => Promise.all([spawn(job), spawn(job)]);
const f1 = (x: number) => x.toFixed(1);

if (isMainThread) {
  console.log('fused matMul [rows x 512] x [512 x 1536], GFLOP/s: one thread alone | two threads at once');
  for (const rows of [64, 128, 1024]) {
    const alone = await spawn({ kind: 'rate', rows });
    const [a, b] = await both({ kind: 'rate', rows });
    console.log(`  ${String(rows).padStart(5)} rows: ${f1(alone)} | ${f1(a)} + ${f1(b)}`);
  }
  console.log('encoder-shaped products (both layers), median ms:');
  console.log(`  whole pass, windows [128, 56], one thread: ${f1(await spawn({ kind: 'pass', windows: [128, 56] }))}`);
  const side = await spawn({ kind: 'pass', windows: [64, 28] });
  const [s1, s2] = await both({ kind: 'pass', windows: [64, 28] });
  console.log(`  one row-split side, windows [64, 28]: alone ${f1(side)} | two at once ${f1(s1)} / ${f1(s2)}`);
} else {
  parentPort!.postMessage(await run(workerData as Job));
}
