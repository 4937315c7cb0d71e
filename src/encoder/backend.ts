/**
 * The tfjs backend registry: an ordered list of backends, the first that initialises and
 * passes a known-answer self-test of the operations the encoder and heads use wins (as
 * onnxruntime-web does). tfjs-node is an optional dependency that cannot install on every
 * machine, so every error of loading it (not only MODULE_NOT_FOUND) means "try the next one".
 * The encoder's own registry (registry.ts) puts onnxruntime-node before these.
 * @module
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '../engine/contract.js';

/** The tfjs backends: every encoder backend but onnxruntime-node. */
export type TfjsBackendName = Exclude<BackendName, 'onnxruntime-node'>;

/** How to bring up one backend; resolves false (or throws) when it is not available. */
interface BackendCandidate {
  name: TfjsBackendName;
  init(): Promise<boolean>;
}

const require = createRequire(import.meta.url);

// tfjs' own console advice (the cpu backend's "install our node backend" banner, tfjs-node's
// "Platform node has already been set") goes through its warn(), which PROD silences. Set
// before any backend loads, so that no code path prints them to a library user's stderr;
// engine.stats().backend says which backend runs.
tf.env().set('PROD', true);

/** Preferred order: native TensorFlow, then WebAssembly with SIMD, then plain JavaScript. */
export const BACKEND_ORDER: readonly BackendCandidate[] = [
  {
    name: 'tensorflow',
    async init() {
      // The package name is built at run time so that bundlers and tsc do not require it.
      const name = ['@tensorflow', 'tfjs-node'].join('/');
      await import(name);
      return tf.setBackend('tensorflow');
    },
  },
  {
    name: 'wasm',
    async init() {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
      wasm.setWasmPaths(dir + path.sep);
      return tf.setBackend('wasm');
    },
  },
  {
    name: 'cpu',
    async init() {
      await import('@tensorflow/tfjs-backend-cpu');
      return tf.setBackend('cpu');
    },
  },
];

/** One backend tried: no `error` means it started and passed its self-test. */
export interface BackendAttempt {
  name: BackendName;
  error?: string;
}

/** What happened to each tfjs backend tried, for diagnostics. */
export interface TfjsBackendReport {
  backend: TfjsBackendName;
  tried: BackendAttempt[];
}

let active: Promise<TfjsBackendReport> | null = null;

/**
 * A known-answer test of the operations the encoder and heads run (a matrix product with bias,
 * softmax, tanh, a sum), against values computed here in float64: a backend whose arithmetic is
 * broken is passed over rather than used.
 */
export function tfjsSelfTest(): void {
  const a = [0.5, -1, 2, 0.25, 3, -0.5];
  const b = [1, 2, -1, 0.5, 0.25, -2];
  const got = tf.tidy(() => {
    const product = tf.add(tf.matMul(tf.tensor2d(a, [2, 3]), tf.tensor2d(b, [3, 2])), tf.tensor1d([0.1, -0.1]));
    return tf.concat([tf.softmax(product), tf.tanh(product), tf.sum(product, 1, true)], 1);
  });
  const values = got.dataSync();
  got.dispose();
  const expected: number[] = [];
  for (let r = 0; r < 2; r++) {
    const p = [0, 1].map((c) => [0, 1, 2].reduce((s, k) => s + a[r * 3 + k]! * b[k * 2 + c]!, 0) + (c === 0 ? 0.1 : -0.1));
    const e = p.map((v) => Math.exp(v - Math.max(...p)));
    expected.push(...e.map((v) => v / (e[0]! + e[1]!)), ...p.map(Math.tanh), p[0]! + p[1]!);
  }
  const worst = expected.reduce((m, v, i) => Math.max(m, Math.abs(v - values[i]!)), 0);
  if (!(worst < 1e-4)) throw new Error(`self-test failed: results off by ${worst}`);
}

/**
 * Initialises the first backend that works (or exactly `only`, when given) and makes it the
 * process-wide tfjs backend. tfjs has one global backend per process, so the choice is made
 * once and later calls share it.
 */
export function initBackend(only?: TfjsBackendName): Promise<TfjsBackendReport> {
  active ??= (async () => {
    const tried: TfjsBackendReport['tried'] = [];
    for (const candidate of BACKEND_ORDER) {
      if (only && candidate.name !== only) continue;
      try {
        if (await candidate.init()) {
          await tf.ready();
          tfjsSelfTest();
          tried.push({ name: candidate.name });
          return { backend: candidate.name, tried };
        }
        tried.push({ name: candidate.name, error: 'setBackend returned false' });
      } catch (error) {
        tried.push({ name: candidate.name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    active = null;
    throw new Error(`No tfjs backend could start: ${tried.map((t) => `${t.name}: ${t.error}`).join('; ')}`);
  })();
  return active.then((report) => {
    if (only && report.backend !== only) {
      throw new Error(`Backend '${only}' requested, but this process already runs on '${report.backend}'`);
    }
    return report;
  });
}
