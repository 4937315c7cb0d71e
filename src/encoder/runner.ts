/**
 * What runs the encoder's passes: the interface every encoder backend implements, and its tfjs
 * implementation (transformer.ts on the process' tfjs backend). The ONNX one is
 * onnx-runner.ts. `Encoder` (index.ts) does the windows, slicing, batching across requests and
 * pooling over windows for all of them.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '../engine/contract.js';
import type { TransformerEncoder } from './transformer.js';
import { ENCODER_SHAPE } from './weights.js';

/** Per window of a run, in input order. */
export interface PassResults {
  /** [windows, hidden]: each window's sum of its final token states (zero rows for empty windows). */
  sums: Float32Array;
  /** [tokens of all windows, hidden] final token states, or null when not asked for. */
  states: Float32Array | null;
}

/** One encoder backend. Each window is encoded on its own, positions 0..length-1. */
export interface PassRunner {
  readonly backend: BackendName;
  /** Encodes windows (at most maxTokens each). */
  run(windows: readonly (readonly number[])[], keepStates: boolean): PassResults | Promise<PassResults>;
  /** Unit-length embeddings of mean token states, `means` [texts, hidden]. */
  pool(means: Float32Array, texts: number): Float32Array | Promise<Float32Array>;
  dispose(): void;
}

function readAndDispose(t: tf.Tensor): Float32Array {
  const values = t.dataSync() as Float32Array;
  t.dispose();
  return values;
}

/** The tfjs backend's runner; synchronous, so the row split (rows.ts) can call it mid-job. */
export class TfjsRunner implements PassRunner {
  constructor(
    readonly transformer: TransformerEncoder,
    readonly backend: BackendName,
  ) {}

  run(run: readonly (readonly number[])[], keepStates: boolean): PassResults {
    const pass = this.transformer.sequenceSumsInPassOrder(run, { keepStates });
    const sums = readAndDispose(pass.sums);
    const states = pass.states ? readAndDispose(pass.states) : null;
    if (pass.order.every((input, row) => input === row)) return { sums, states };
    const hidden = ENCODER_SHAPE.hiddenDim;
    const ordered = new Float32Array(sums.length);
    pass.order.forEach((input, row) => ordered.set(sums.subarray(row * hidden, (row + 1) * hidden), input * hidden));
    if (!states) return { sums: ordered, states: null };
    const start: number[] = [];
    let offset = 0;
    run.forEach((w, i) => {
      start[i] = offset;
      offset += w.length;
    });
    const orderedStates = new Float32Array(states.length);
    let row = 0;
    for (const input of pass.order) {
      const n = run[input]!.length;
      orderedStates.set(states.subarray(row * hidden, (row + n) * hidden), start[input]! * hidden);
      row += n;
    }
    return { sums: ordered, states: orderedStates };
  }

  pool(means: Float32Array, texts: number): Float32Array {
    return readAndDispose(tf.tidy(() => this.transformer.pool(tf.tensor2d(means, [texts, ENCODER_SHAPE.hiddenDim]))));
  }

  dispose(): void {
    this.transformer.dispose();
  }
}
