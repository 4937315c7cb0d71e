/**
 * The trained heads on onnxruntime-node: stage 1's tensor work (align-graph.ts) and stage 2
 * (forward-graph.ts, every member) in two inference sessions, serving a request's questions in
 * the chunks request-logits.ts makes. What is plain JavaScript on the tfjs path stays so here,
 * and is the same code: the texts' normalised halves (text-norms.ts, cached per text), the
 * token-id cues and fixed features (late.ts `planAlignment` / `finishAlignment`: regular
 * expressions and a few loops over a text's tokens, no tensor work to hand over), the batch's
 * index arrays (forward-batch.ts) and the members' average.
 *
 * Loaded only from backend.ts, by a specifier bundlers do not follow.
 * @module
 */
import { floatOutput, loadOnnxRuntime, sessionOptions, type OrtModule, type OrtSession, type OrtTensor } from '../../onnx/runtime.js';
import { averageInto, batchQuestionsOf, CHUNK_CELLS, chunkQuestions, logitsFromOutputs, textsOf, type QuestionInput } from '../request-logits.js';
import { emptyCore, finishAlignment, HIDDEN, planAlignment, type AlignCore, type AlignPlan, type Aligned, type Params, type TextRep } from '../late.js';
import { alignModel, alignPadding } from './align-graph.js';
import { FORWARD_FLOAT_INPUTS, FORWARD_INDEX_INPUTS, forwardModel } from './forward-graph.js';
import { forwardData } from './forward-batch.js';

export interface OnnxHeadsOptions {
  /** The package to load (default `onnxruntime-node`); tests name a missing one. @internal */
  module?: string;
}

/** Rows (text tokens) x padded state tokens of one alignment run at most (as a chunk's bound). */
const RUN_CELLS = CHUNK_CELLS;

const int64 = (v: readonly number[]) => BigInt64Array.from(v, (i) => BigInt(i));

export class OnnxHeads {
  readonly backend = 'onnxruntime-node' as const;

  private constructor(
    private readonly ort: OrtModule,
    private readonly alignSession: OrtSession,
    private readonly forwardSession: OrtSession,
    readonly members: readonly Params[],
  ) {}

  /** Builds both models (stage 2 from the members' loaded parameters) and opens their sessions. */
  static async create(members: readonly Params[], options: OnnxHeadsOptions = {}): Promise<OnnxHeads> {
    const ort = await loadOnnxRuntime(options.module);
    // One intra-op thread whatever the engine's: with two, MLAS splits a product's columns
    // between threads only when the batch is large enough, and the split changes how a row's
    // terms are blocked and summed, so a question's bits depended on its batch (measured: 67 of
    // 138 questions differed alone and batched with two threads, none with one). The heads'
    // tensor work is a few milliseconds; a second thread would save little of it.
    // No memory patterns: nearly every request brings new shapes (see reader/onnx-runner.ts).
    const opts = { ...sessionOptions(1), enableMemPattern: false };
    const align = await ort.InferenceSession.create(alignModel(), opts);
    try {
      return new OnnxHeads(ort, align, await ort.InferenceSession.create(forwardModel(members), opts), members);
    } catch (error) {
      void align.release().catch(() => undefined);
      throw error;
    }
  }

  private tensor(data: Float32Array, dims: readonly number[]): OrtTensor {
    return new this.ort.Tensor('float32', data, dims);
  }

  /** Stage 1's tensor work of a plan, in runs of at most RUN_CELLS similarity cells (rows are independent). */
  private async core(plan: AlignPlan): Promise<AlignCore> {
    const { state, total, texts } = plan;
    const n = state.n;
    const spans = plan.spanStarts.length;
    const P = alignPadding(n, spans);
    const stateX = new Float32Array(P * HIDDEN);
    stateX.set(state.tokens.subarray(0, n * HIDDEN));
    const colBias = new Float32Array(P).fill(-Infinity, n);
    const negation = new Float32Array(P);
    negation.set(plan.stateNeg.subarray(0, n));
    const T = Math.max(2, texts.length);
    const means = new Float32Array(T * HIDDEN);
    means.set(plan.textMeans);
    const fixedFeeds = {
      stateX: this.tensor(stateX, [P, HIDDEN]),
      colBias: this.tensor(colBias, [1, P]),
      negation: this.tensor(negation, [P, 1]),
      textMeans: this.tensor(means, [T, HIDDEN]),
      spanCount: new this.ort.Tensor('int64', int64([spans]), [1]),
    };
    const core = emptyCore(plan);
    const block = Math.max(1, Math.floor(RUN_CELLS / P));
    for (let r0 = 0; r0 < total; r0 += block) {
      const r1 = Math.min(total, r0 + block);
      const R = Math.max(2, r1 - r0);
      const rows = new Float32Array(R * HIDDEN);
      rows.set(plan.flat.subarray(r0 * HIDDEN, r1 * HIDDEN));
      const out = await this.alignSession.run({ ...fixedFeeds, textX: this.tensor(rows, [R, HIDDEN]) });
      const k = r1 - r0;
      core.best.set(floatOutput(out.best, 'best').subarray(0, k), r0);
      core.soft.set(floatOutput(out.soft, 'soft').subarray(0, k), r0);
      core.negAtt.set(floatOutput(out.negAtt, 'negAtt').subarray(0, k), r0);
      core.aligned.set(floatOutput(out.aligned, 'aligned').subarray(0, k * HIDDEN), r0 * HIDDEN);
      const argmax = out.argmax?.data;
      if (!(argmax instanceof BigInt64Array)) throw new Error("onnxruntime: no int64 output 'argmax'");
      for (let i = 0; i < k; i++) core.argmax[r0 + i] = Number(argmax[i]!);
      if (r0 === 0) {
        core.spanBest = floatOutput(out.spanBest, 'spanBest').slice(0, texts.length);
        core.spanSoft = floatOutput(out.spanSoft, 'spanSoft').slice(0, texts.length);
      }
    }
    return core;
  }

  /** Stage 1 (late.ts `alignTexts`) with its tensor work on onnxruntime. */
  async align(state: TextRep, texts: readonly TextRep[]): Promise<Aligned[]> {
    const plan = planAlignment(state, texts);
    return finishAlignment(plan, plan.tensorWork ? await this.core(plan) : emptyCore(plan));
  }

  /** The same as `requestLogits` (request-logits.ts), computed natively. */
  async logits(state: TextRep, questions: readonly QuestionInput[]): Promise<number[][]> {
    const result: number[][] = new Array<number[]>(questions.length);
    for (const chunk of chunkQuestions(questions, state.n)) {
      const inputs = chunk.map((i) => questions[i]!);
      const batchQuestions = batchQuestionsOf(inputs, await this.align(state, inputs.flatMap(textsOf)));
      const data = forwardData(batchQuestions);
      const feeds: Record<string, OrtTensor> = {};
      for (const [name, dims] of Object.entries(FORWARD_FLOAT_INPUTS)) feeds[name] = this.tensor(data.floats[name]!, dims.map((d) => (typeof d === 'number' ? d : data.sizes[d as keyof typeof data.sizes])));
      for (const name of Object.keys(FORWARD_INDEX_INPUTS)) {
        const v = data.indices[name]!;
        feeds[name] = new this.ort.Tensor('int64', int64(v), [v.length]);
      }
      const out = await this.forwardSession.run(feeds);
      const perMember = this.members.map((_, m) =>
        logitsFromOutputs(batchQuestions, {
          noul: data.counts.noul ? floatOutput(out[`noul_${m}`], `noul_${m}`) : undefined,
          choice: data.counts.choice ? floatOutput(out[`choice_${m}`], `choice_${m}`) : undefined,
          score: data.counts.score ? floatOutput(out[`score_${m}`], `score_${m}`) : undefined,
        }),
      );
      averageInto(result, chunk, perMember);
    }
    return result;
  }

  dispose(): void {
    void this.alignSession.release().catch(() => undefined);
    void this.forwardSession.release().catch(() => undefined);
  }
}
