/**
 * The encoder's backend registry, in the onnxruntime-web style: an ordered list
 * (ENCODER_BACKENDS), and the first backend that loads and passes its self-test runs the
 * encoder; every failure is kept with its reason (`engine.stats().backends`, the CLI's output).
 *
 * - onnxruntime-node: native code from npm (an optional dependency). Its self-test encodes two
 *   probe windows and compares token states and embeddings with the tfjs encoder's.
 * - the tfjs backends (backend.ts): tensorflow (tfjs-node), wasm, cpu. One of them always
 *   starts too, whichever runs the encoder: the heads compute on it.
 *
 * Outside Node.js (the browser build) onnxruntime-node is passed over without being loaded.
 * @module
 */
import type { BackendName } from '../engine/contract.js';
import { planEncoder } from './architecture.js';
import { initBackend, type BackendAttempt, type TfjsBackendName } from './backend.js';
import type { PassRunner } from './runner.js';
import { TfjsRunner } from './runner.js';
import { TransformerEncoder } from './transformer.js';
import { ENCODER_SHAPE, loadEncoderWeights, type EncoderWeights } from './weights.js';

/** Encoder backends in order of preference. */
export const ENCODER_BACKENDS: readonly BackendName[] = ['onnxruntime-node', 'tensorflow', 'wasm', 'cpu'];

/** Which backends run the engine, and why the others do not. */
export interface BackendReport {
  /** Runs the encoder. */
  backend: BackendName;
  /** The process' tfjs backend (the heads; the encoder too when `backend` is a tfjs one). */
  tfjs: TfjsBackendName;
  /** Every backend tried, in order, with the reason it was passed over. */
  tried: BackendAttempt[];
}

/** Options of `Encoder.load`. */
export interface EncoderLoadOptions {
  /** Only this backend (throws when it cannot start); default: the first of ENCODER_BACKENDS that works. */
  backend?: BackendName;
  /** onnxruntime-node's intra-op threads per pass (default 1). */
  threads?: number;
  /** The onnxruntime package to load (tests name a missing one). @internal */
  nativeModule?: string;
}

/** Largest difference allowed between the native and the tfjs encoder on the probes (measured: 1.5e-4 on states of norm ~20). */
const STATE_TOLERANCE = 2e-3;
const POOLED_TOLERANCE = 1e-4;

/** Probe windows: a long one and a short one, of ids spread over the vocabulary. */
function probeWindows(): number[][] {
  const ids = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ((i * 7919 + seed * 104_729) % (ENCODER_SHAPE.vocabSize - 10)) + 5);
  return [ids(48, 1), ids(5, 2)];
}

function meansOf(sums: Float32Array, lengths: readonly number[]): Float32Array {
  const hidden = ENCODER_SHAPE.hiddenDim;
  return sums.map((v, i) => v / Math.max(1, lengths[Math.floor(i / hidden)]!));
}

function worstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (!(d <= worst)) worst = d; // NaN counts as the worst
  }
  return worst;
}

/** Throws unless `candidate` encodes the probes as `reference` does, within the tolerances. */
export async function selfTest(candidate: PassRunner, reference: TfjsRunner): Promise<void> {
  const windows = probeWindows();
  const lengths = windows.map((w) => w.length);
  const want = reference.run(windows, true);
  const got = await candidate.run(windows, true);
  const states = worstDifference(got.states!, want.states!);
  if (!(states <= STATE_TOLERANCE)) throw new Error(`self-test failed: token states differ from the tfjs encoder's by ${states}`);
  const pooled = worstDifference(await candidate.pool(meansOf(got.sums, lengths), windows.length), reference.pool(meansOf(want.sums, lengths), windows.length));
  if (!(pooled <= POOLED_TOLERANCE)) throw new Error(`self-test failed: embeddings differ from the tfjs encoder's by ${pooled}`);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Starts the encoder's backend as the module comment says; also returns the loaded weights. */
export async function loadPassRunner(options: EncoderLoadOptions = {}): Promise<{ runner: PassRunner; report: BackendReport; weights: EncoderWeights }> {
  const only = options.backend;
  if (only && !ENCODER_BACKENDS.includes(only)) throw new Error(`Unknown encoder backend '${only}'; one of ${ENCODER_BACKENDS.join(', ')}`);
  const tfjs = await initBackend(only && only !== 'onnxruntime-node' ? only : undefined);
  const weights = await loadEncoderWeights();
  const reference = new TfjsRunner(new TransformerEncoder(weights), tfjs.backend);
  const tried: BackendAttempt[] = [];
  const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  if (!only && !inNode) tried.push({ name: 'onnxruntime-node', error: 'not running in Node.js' });
  else if (!only || only === 'onnxruntime-node') {
    const plan = planEncoder(weights);
    try {
      // Loaded only on this path, by a specifier bundlers do not follow: the browser build
      // never carries onnxruntime's loader or the graph writer.
      const file = new URL(import.meta.url.endsWith('.ts') ? './onnx-runner.ts' : './onnx-runner.js', import.meta.url).href;
      const { OnnxRunner } = (await import(file)) as typeof import('./onnx-runner.js');
      const runner = await OnnxRunner.create(plan, {
        ...(options.threads === undefined ? {} : { threads: options.threads }),
        ...(options.nativeModule === undefined ? {} : { module: options.nativeModule }),
      });
      try {
        await selfTest(runner, reference);
      } catch (error) {
        runner.dispose();
        throw error;
      }
      reference.dispose();
      tried.push({ name: 'onnxruntime-node' });
      return { runner, report: { backend: 'onnxruntime-node', tfjs: tfjs.backend, tried: [...tried, ...tfjs.tried] }, weights };
    } catch (error) {
      if (only) {
        reference.dispose();
        throw new Error(`Encoder backend 'onnxruntime-node' could not start: ${reason(error)}`);
      }
      tried.push({ name: 'onnxruntime-node', error: reason(error) });
    } finally {
      for (const t of plan.tensors) t.dispose();
    }
  }
  return { runner: reference, report: { backend: tfjs.backend, tfjs: tfjs.backend, tried: [...tried, ...tfjs.tried] }, weights };
}
