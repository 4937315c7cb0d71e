/**
 * The encoder on onnxruntime-node: the graphs of onnx-graph.ts in two inference sessions on
 * the CPU execution provider. onnxruntime-node is an optional dependency (its install can fail
 * or be left out), so it is loaded at run time by a name tsc and bundlers do not follow, and
 * only the few calls used here are typed, by hand.
 *
 * Every window runs as its own pass. Batching windows of one length would save
 * about 0.2 ms a window, but onnxruntime's products pick their kernels by the number of rows, so
 * a window's bits would depend on what else is batched with it (measured: a 6-token window
 * differs in the 7th digit alone and beside another); alone, a text's encoding, and so its
 * answers, never depend on the other texts of a request (`test/encoder-onnx.test.ts`).
 * @module
 */
import type { EncoderPlan } from './architecture.js';
import { encoderModel, poolerModel } from './onnx-graph.js';
import type { PassResults, PassRunner } from './runner.js';
import { ENCODER_SHAPE } from './weights.js';
import { floatOutput as floats, loadOnnxRuntime, sessionOptions as optionsFor, type OrtModule, type OrtSession } from '../onnx/runtime.js';

export { loadOnnxRuntime };

/** Options of the native encoder. */
export interface OnnxRunnerOptions {
  /** onnxruntime's intra-op threads for one pass (default 1: one core per engine). */
  threads?: number;
  /**
   * The package to load (default `onnxruntime-node`); tests name a missing one to see the
   * registry fall back.
   * @internal
   */
  module?: string;
}

export class OnnxRunner implements PassRunner {
  readonly backend = 'onnxruntime-node' as const;

  private constructor(
    private readonly ort: OrtModule,
    private readonly encoder: OrtSession,
    private readonly pooler: OrtSession,
    readonly version: string,
  ) {}

  /** Builds the graphs from `plan` and opens their sessions. */
  static async create(plan: EncoderPlan, options: OnnxRunnerOptions = {}): Promise<OnnxRunner> {
    const ort = await loadOnnxRuntime(options.module);
    const threads = Math.max(1, Math.floor(options.threads ?? 1));
    const sessionOptions = optionsFor(threads);
    const [encoder, pooler] = await Promise.all([
      ort.InferenceSession.create(encoderModel(plan), sessionOptions),
      ort.InferenceSession.create(poolerModel(plan), { ...sessionOptions, intraOpNumThreads: 1 }),
    ]);
    return new OnnxRunner(ort, encoder, pooler, ort.env.versions?.node ?? 'unknown');
  }

  async run(windows: readonly (readonly number[])[], keepStates: boolean): Promise<PassResults> {
    const hidden = ENCODER_SHAPE.hiddenDim;
    const sums = new Float32Array(windows.length * hidden);
    const start: number[] = [];
    let tokens = 0;
    windows.forEach((w, i) => {
      start[i] = tokens;
      tokens += w.length;
    });
    const states = keepStates ? new Float32Array(tokens * hidden) : null;
    for (const [i, w] of windows.entries()) {
      if (w.length === 0) continue;
      const ids = BigInt64Array.from(w, (id) => BigInt(id));
      const out = await this.encoder.run({ ids: new this.ort.Tensor('int64', ids, [w.length]) }, keepStates ? ['states', 'sums'] : ['sums']);
      sums.set(floats(out.sums, 'sums'), i * hidden);
      if (states) states.set(floats(out.states, 'states'), start[i]! * hidden);
    }
    return { sums, states };
  }

  async pool(means: Float32Array, texts: number): Promise<Float32Array> {
    const out = await this.pooler.run({ means: new this.ort.Tensor('float32', means, [texts, ENCODER_SHAPE.hiddenDim]) });
    return floats(out.pooled, 'pooled');
  }

  dispose(): void {
    void this.encoder.release().catch(() => undefined);
    void this.pooler.release().catch(() => undefined);
  }
}
