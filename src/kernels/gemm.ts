/**
 * Our matrix product on the tfjs wasm backend: `x W + b` (optionally then ReLU) for weights
 * known in advance, run by a small hand-written WebAssembly kernel (gemm.wat) on the tensors in
 * the backend's own memory, registered as a tfjs kernel so that tf.tidy and disposal work as
 * for any op.
 *
 * Why: the encoder and the heads spend about 85% of their time in matrix products, and on the
 * development machine (AMD EPYC, Node 20) XNNPACK's kernels in tfjs' wasm build run them at
 * 26-31 GFLOP/s, while a plain 4 x 8 tile with broadcast loads runs at about 40
 * (`node dist/bench/speed/gemm.js`). Each output row is computed on its own, in a fixed order
 * (gemm.wat), so results never depend on batching.
 *
 * Used only where it initialises: the wasm backend, its memory reachable, and a self-test
 * against tfjs' own product passed. Anywhere else (tfjs-node, the cpu backend, a tfjs version
 * whose internals differ) `gemmReady()` is false and callers use tf.fused.matMul.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { GEMM_WASM } from './gemm-wasm.js';

const KERNEL_NAME = 'EvalmodelDense';
const PACK_ROWS = 'EvalmodelPackRows';
const PACK_TRANSPOSED = 'EvalmodelPackTransposed';

/** The parts of tfjs-backend-wasm's BackendWasm this kernel uses (its own kernels use the same). */
export interface WasmBackendInternals {
  wasm: { asm?: { memory?: unknown } };
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
}

/** gemm.wat's exports. */
interface KernelExports {
  gemm(a: number, packed: number, bias: number, out: number, m: number, k: number, n: number, relu: number): void;
  pack_rows(src: number, rows: number, padded: number, n: number, dst: number): void;
  pack_transposed(src: number, count: number, k: number, dst: number): void;
}

/** A dense layer's weights in the kernel's layout. */
export interface PackedDense {
  /** The kernel [k, n] as panels of 8 columns, each k rows of 8 (packRows). */
  packed: tf.Tensor1D;
  bias: tf.Tensor1D;
  k: number;
  n: number;
}

const instances = new WeakMap<object, KernelExports>();
/** Per backend object: whether the kernel passed its self-test there. */
const readiness = new WeakMap<object, boolean>();
let reason = 'not tried yet';
let enabled = true;

/**
 * Turns the kernel off (tfjs' own products everywhere) or back on, for A/B measurements and
 * tests; on by default. The encoder packs its weights at load only while it is on.
 */
export function setGemmEnabled(on: boolean): void {
  enabled = on;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function internals(backend: unknown): WasmBackendInternals {
  return backend as WasmBackendInternals;
}

/** The kernel instance sharing this backend's memory (one per backend object). */
export function kernelsOf(backend: unknown): KernelExports {
  const key = backend as object;
  let kernels = instances.get(key);
  if (!kernels) {
    const memory = internals(backend).wasm.asm?.memory;
    if (!(memory instanceof WebAssembly.Memory)) throw new Error('the wasm backend does not expose its memory');
    const module = new WebAssembly.Module(decodeBase64(GEMM_WASM));
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    kernels = instance.exports as unknown as KernelExports;
    instances.set(key, kernels);
  }
  return kernels;
}

export function offsetOf(backend: WasmBackendInternals, t: tf.TensorInfo): number {
  const entry = backend.dataIdMap.get(t.dataId);
  if (!entry) throw new Error('gemm: a tensor is not on the wasm backend');
  return entry.memoryOffset;
}

function register(): void {
  if (tf.getKernel(KERNEL_NAME, 'wasm')) return;
  tf.registerKernel({
    kernelName: KERNEL_NAME,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, packed, bias } = inputs as { x: tf.TensorInfo; packed: tf.TensorInfo; bias: tf.TensorInfo };
      const b = internals(backend);
      const [m, k] = x.shape as [number, number];
      const n = bias.shape[0]!;
      const out = b.makeOutput([m, n], 'float32');
      // Offsets are read after makeOutput, which may grow the memory.
      if (m > 0) kernelsOf(backend).gemm(offsetOf(b, x), offsetOf(b, packed), offsetOf(b, bias), offsetOf(b, out), m, k, n, attrs?.relu ? 1 : 0);
      return out;
    },
  });
  tf.registerKernel({
    kernelName: PACK_ROWS,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x } = inputs as { x: tf.TensorInfo };
      const b = internals(backend);
      const [rows, n] = x.shape as [number, number];
      const padded = Number(attrs?.padded);
      const out = b.makeOutput([padded * n], 'float32');
      kernelsOf(backend).pack_rows(offsetOf(b, x), rows, padded, n, offsetOf(b, out));
      return out;
    },
  });
  tf.registerKernel({
    kernelName: PACK_TRANSPOSED,
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend }) => {
      const { x } = inputs as { x: tf.TensorInfo };
      const b = internals(backend);
      const [count, k] = x.shape as [number, number];
      const out = b.makeOutput([k * roundUp8(count)], 'float32');
      kernelsOf(backend).pack_transposed(offsetOf(b, x), count, k, offsetOf(b, out));
      return out;
    },
  });
}

/** `n` rounded up to a multiple of 8, the kernel's column panel. */
export function roundUp8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/**
 * B for `dense` from a matrix on the backend, [rows, n] (n a multiple of 8), as `padded` rows
 * (the rows past `rows` zero): for products `a x` where a has `padded` columns. Needs `gemmReady()`.
 */
export function packRows(x: tf.Tensor2D, padded = x.shape[0]): tf.Tensor1D {
  if (x.shape[1] % 8 !== 0 || padded < x.shape[0]) throw new RangeError(`gemm: cannot pack [${x.shape}] as ${padded} rows`);
  return tf.engine().runKernel(PACK_ROWS, { x }, { padded }) as tf.Tensor1D;
}

/**
 * B for `dense` from the transpose of a matrix on the backend, [count, k]: k rows of
 * roundUp8(count) columns, those past `count` zero; for products `a xᵀ`. Needs `gemmReady()`.
 */
export function packTransposed(x: tf.Tensor2D): tf.Tensor1D {
  return tf.engine().runKernel(PACK_TRANSPOSED, { x }) as tf.Tensor1D;
}

/** A bias of `n` zeros then -Infinity up to roundUp8(n): padded columns drop out of max and softmax. */
export function paddedBias(n: number): Float32Array {
  return new Float32Array(roundUp8(n)).fill(-Infinity, n);
}

/** Whether the kernel can serve a [k, n] product: n a multiple of 8, k at least 1. */
export function packable(k: number, n: number): boolean {
  return k > 0 && n > 0 && n % 8 === 0;
}

/** Packs a dense layer's weights for `dense`; the caller owns (and disposes) the tensors. */
export function packDense(kernel: tf.Tensor2D, bias: tf.Tensor1D): PackedDense {
  const [k, n] = kernel.shape;
  return { packed: packRows(kernel), bias: tf.clone(bias), k, n };
}

/** `x W + b`, then ReLU when `relu`, through the kernel. Needs `gemmReady()`. */
export function dense(x: tf.Tensor2D, w: PackedDense, relu = false): tf.Tensor2D {
  if (x.shape[1] !== w.k) throw new RangeError(`gemm: input of width ${x.shape[1]} for a ${w.k} x ${w.n} kernel`);
  return tf.engine().runKernel(KERNEL_NAME, { x, packed: w.packed, bias: w.bias }, { relu }) as tf.Tensor2D;
}

/**
 * The self-test: products through every loop of the kernel and both packings (rows past the
 * 4-row tiles, padded columns at -Infinity, padded rows), against tfjs' own products.
 */
function selfTest(): boolean {
  return tf.tidy(() => {
    const x = tf.randomUniform([6, 24], -1, 1, 'float32', 7) as tf.Tensor2D;
    const w = tf.randomUniform([24, 16], -1, 1, 'float32', 8) as tf.Tensor2D;
    const b = tf.randomUniform([16], -1, 1, 'float32', 9) as tf.Tensor1D;
    const keys = tf.randomUniform([5, 24], -1, 1, 'float32', 10) as tf.Tensor2D;
    const values = tf.randomUniform([5, 16], -1, 1, 'float32', 11) as tf.Tensor2D;
    const scores = dense(x, { packed: packTransposed(keys), bias: tf.tensor1d(paddedBias(5)), k: 24, n: 8 }); // [6, 8]
    const weights = tf.softmax(scores) as tf.Tensor2D;
    const pairs: [tf.Tensor, tf.Tensor][] = [
      [dense(x, packDense(w, b), true), tf.relu(tf.add(tf.matMul(x, w), b))],
      [tf.slice(scores, [0, 0], [6, 5]), tf.matMul(x, keys, false, true)],
      [dense(weights, { packed: packRows(values, 8), bias: tf.zeros([16]) as tf.Tensor1D, k: 8, n: 16 }), tf.matMul(tf.slice(weights, [0, 0], [6, 5]), values)],
    ];
    const padding = tf.max(tf.slice(scores, [0, 5], [6, 3])).dataSync()[0];
    return padding === -Infinity && pairs.every(([ours, theirs]) => tf.max(tf.abs(tf.sub(ours, theirs))).dataSync()[0]! < 1e-4);
  });
}

/**
 * Whether the kernel serves the current backend: the wasm backend, where registration and the
 * self-test passed (tried once per backend object).
 */
export function gemmReady(): boolean {
  if (!enabled || tf.getBackend() !== 'wasm') return false;
  const backend = tf.backend() as object;
  let ready = readiness.get(backend);
  if (ready === undefined) {
    ready = false;
    try {
      register();
      if (!selfTest()) throw new Error('self-test gave a different product');
      ready = true;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    readiness.set(backend, ready);
  }
  return ready;
}

/** Why the kernel is not in use, when it is not (for diagnostics). */
export function gemmUnavailableReason(): string {
  if (gemmReady()) return '';
  if (!enabled) return 'turned off (setGemmEnabled)';
  return tf.getBackend() !== 'wasm' ? `the backend is ${tf.getBackend()}` : reason;
}
