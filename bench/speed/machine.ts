/**
 * What the speed bench reads from the machine itself: CPU time, the backend's best
 * matrix-product rate (the peak the achieved GFLOP/s are compared with), and how busy all cores
 * are (to tell our work from other processes').
 * @module
 */
import os from 'node:os';
import * as tf from '@tensorflow/tfjs-core';
import { dense, gemmReady, packDense } from '../../src/kernels/gemm.js';
import { loadOnnxRuntime } from '../../src/encoder/onnx-runner.js';
import { productModel } from '../../src/encoder/onnx-graph.js';
import { median } from './report.js';

/** CPU time of this process in ms (all threads: the engine's work runs on this one). */
export const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Best rate of the matrix product the encoder uses, GFLOP/s: median of repeated large products
 * (result read back), through our kernel where it serves the backend (src/kernels/gemm.ts),
 * else tf.fused.matMul.
 */
export function measurePeak(): { gflops: number; kernel: string } {
  const [m, k, n] = [1024, 512, 1536];
  const a = tf.randomNormal([m, k]) as tf.Tensor2D;
  const b = tf.randomNormal([k, n]) as tf.Tensor2D;
  const bias = tf.randomNormal([n]) as tf.Tensor1D;
  const ours = gemmReady() ? packDense(b, bias) : null;
  const product = () => (ours ? dense(a, ours) : tf.fused.matMul({ a, b, bias }));
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < 12; i++) {
    const cpu = cpuNow();
    const start = performance.now();
    const out = product();
    out.dataSync();
    const ms = performance.now() - start;
    const cpuMs = cpuNow() - cpu;
    out.dispose();
    if (i >= 2) {
      times.push(ms);
      cpuTimes.push(cpuMs);
    }
  }
  tf.dispose([a, b, bias, ...(ours ? [ours.packed, ours.bias] : [])]);
  const flops = 2 * m * k * n;
  // Best of wall and CPU time: on a shared machine the wall clock counts other processes' turns.
  const ms = Math.min(median(times), median(cpuTimes));
  return { gflops: flops / (ms * 1e6), kernel: `${ours ? 'evalmodel gemm' : 'tf.fused.matMul'} ${m}x${k}x${n} on '${tf.getBackend()}', one core, median of 10 (wall ${median(times).toFixed(1)} ms, cpu ${median(cpuTimes).toFixed(1)} ms)` };
}

/** CPU time all cores of the machine spent busy (any process), ms. */
export function machineBusyMs(): number {
  return os.cpus().reduce((n, c) => n + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
}

/**
 * The same product on onnxruntime-node (one intra-op thread unless `threads`), GFLOP/s: the
 * peak the native encoder's rate is compared with. Null where onnxruntime-node does not load.
 */
export async function measureNativePeak(threads = 1): Promise<{ gflops: number; kernel: string } | null> {
  const [m, k, n] = [1024, 512, 1536];
  let ort: Awaited<ReturnType<typeof loadOnnxRuntime>>;
  try {
    ort = await loadOnnxRuntime();
  } catch {
    return null;
  }
  const session = await ort.InferenceSession.create(productModel(k, n), { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const a = new ort.Tensor('float32', Float32Array.from({ length: m * k }, (_, i) => Math.sin(i)), [m, k]);
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < 12; i++) {
    const cpu = cpuNow();
    const start = performance.now();
    await session.run({ a });
    const ms = performance.now() - start;
    if (i >= 2) {
      times.push(ms);
      cpuTimes.push(cpuNow() - cpu);
    }
  }
  await session.release();
  const ms = threads === 1 ? Math.min(median(times), median(cpuTimes)) : median(times);
  return { gflops: (2 * m * k * n) / (ms * 1e6), kernel: `onnxruntime MatMul ${m}x${k}x${n}, ${threads} intra-op thread${threads === 1 ? '' : 's'}, median of 10 (wall ${median(times).toFixed(1)} ms, cpu ${median(cpuTimes).toFixed(1)} ms)` };
}
