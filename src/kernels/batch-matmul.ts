/**
 * Batched matrix products `a[i] b[i]` ([B, m, k] x [B, k, n] -> [B, m, n]) on our WebAssembly
 * kernel, with a gradient, for the reader's attention in training and serving.
 *
 * Why: tfjs-wasm hands batched products (more than one matrix pair) to a plain loop that runs
 * at about 2 GFLOP/s on this machine (386 ms for [96 x 300 x 48] x [96 x 48 x 200]), against
 * about 40 for gemm.wat; attention over many short texts is made of exactly such products.
 * Each pair is packed with `pack_rows` and multiplied by `gemm`, in place in the backend's
 * memory. Needs n a multiple of 8 (the reader pads its lengths to multiples of 8); anywhere the
 * kernel is not ready, or n is not a multiple of 8, `bmm` is tf.matMul.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { gemmReady, kernelsOf, offsetOf, type WasmBackendInternals } from './gemm.js';

const KERNEL = 'EvalmodelBatchMatMul';

function register(): void {
  if (tf.getKernel(KERNEL, 'wasm')) return;
  tf.registerKernel({
    kernelName: KERNEL,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend }) => {
      const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      const be = backend as unknown as WasmBackendInternals & { disposeData(id: object, force?: boolean): boolean };
      const [B, m, k] = a.shape as [number, number, number];
      const n = b.shape[2]!;
      const out = be.makeOutput([B, m, n], 'float32');
      if (B * m * n === 0) return out;
      // Scratch: one packed B and a zero bias, released before returning.
      const packed = be.makeOutput([k * n], 'float32');
      const bias = be.makeOutput([n], 'float32');
      const kernels = kernelsOf(backend);
      // Offsets are read after every makeOutput, which may grow (and move) the memory.
      const [pa, pb, pp, pz, po] = [a, b, packed, bias, out].map((t) => offsetOf(be, t)) as [number, number, number, number, number];
      const memory = be.wasm.asm!.memory as WebAssembly.Memory;
      new Float32Array(memory.buffer, pz, n).fill(0);
      for (let i = 0; i < B; i++) {
        kernels.pack_rows(pb + i * k * n * 4, k, k, n, pp);
        kernels.gemm(pa + i * m * k * 4, pp, pz, po + i * m * n * 4, m, k, n, 0);
      }
      be.disposeData(packed.dataId, true);
      be.disposeData(bias.dataId, true);
      return out;
    },
  });
  tf.registerGradient({
    kernelName: KERNEL,
    inputsToSave: ['a', 'b'],
    gradFunc: (dy, saved) => {
      const [a, b] = saved as [tf.Tensor3D, tf.Tensor3D];
      const g = dy as tf.Tensor3D;
      return {
        a: () => bmm(g, tf.transpose(b, [0, 2, 1])),
        b: () => bmm(tf.transpose(a, [0, 2, 1]), g),
      };
    },
  });
}

/** [B, m, k] x [B, k, n]; on our kernel where it serves, else tfjs' product. */
export function bmm(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  const n = b.shape[2];
  if (n % 8 !== 0 || !gemmReady()) return tf.matMul(a, b);
  register();
  return tf.engine().runKernel(KERNEL, { a, b }) as tf.Tensor3D;
}

/** bmm over any leading axes: [..., m, k] x [..., k, n]. */
export function batchedProduct(a: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const lead = a.shape.slice(0, -2);
  const [m, k] = a.shape.slice(-2) as [number, number];
  const n = b.shape[b.shape.length - 1]!;
  const count = lead.reduce((s, x) => s * x, 1);
  const out = bmm(tf.reshape(a, [count, m, k]), tf.reshape(b, [count, k, n]));
  return tf.reshape(out, [...lead, m, n]);
}
