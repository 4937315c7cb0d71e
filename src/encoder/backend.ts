/**
 * The tfjs backend registry: an ordered list of backends, the first that initialises wins
 * (as onnxruntime-web does). tfjs-node is an optional dependency that cannot install on every
 * machine, so every error of loading it (not only MODULE_NOT_FOUND) means "try the next one".
 * @module
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '../engine/contract.js';

/** How to bring up one backend; resolves false (or throws) when it is not available. */
interface BackendCandidate {
  name: BackendName;
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

/** What happened to each backend tried, for diagnostics. */
export interface BackendReport {
  backend: BackendName;
  tried: { name: BackendName; error?: string }[];
}

let active: Promise<BackendReport> | null = null;

/**
 * Initialises the first backend that works (or exactly `only`, when given) and makes it the
 * process-wide tfjs backend. tfjs has one global backend per process, so the choice is made
 * once and later calls share it.
 */
export function initBackend(only?: BackendName): Promise<BackendReport> {
  active ??= (async () => {
    const tried: BackendReport['tried'] = [];
    for (const candidate of BACKEND_ORDER) {
      if (only && candidate.name !== only) continue;
      try {
        if (await candidate.init()) {
          await tf.ready();
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
