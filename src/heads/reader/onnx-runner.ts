/**
 * The reader on onnxruntime-node: onnx-graph.ts' model of a loaded reader in one inference
 * session, serving a request's questions in the chunks logits.ts makes, each chunk one run of
 * every member. The batch's arrays are built in JavaScript (`readerBatchData`, as for tfjs),
 * so only the model's arithmetic runs natively and the two paths read the same inputs.
 *
 * Loaded only from native.ts, by a specifier bundlers do not follow (the browser build never
 * carries onnxruntime's loader or the graph writer).
 * @module
 */
import { loadOnnxRuntime, sessionOptions, floatOutput, type OrtModule, type OrtSession, type OrtTensor } from '../../onnx/runtime.js';
import { readerBatchData, type ReaderBatchData, type ReaderQuestion, type ReaderText } from './batch.js';
import { averageInto, chunkQuestions, questionLogits, type LoadedReader } from './logits.js';
import { READER_FLOAT_INPUTS, readerModel } from './onnx-graph.js';

export interface OnnxReaderOptions {
  /** The package to load (default `onnxruntime-node`); tests name a missing one. @internal */
  module?: string;
}

/** Per type, the index and value inputs, with one dummy row for a type the batch lacks (see onnx-graph.ts). */
function typeFeeds(b: ReaderBatchData): { index: Record<string, number[]>; value: Record<string, number[]> } {
  const z = b.zeroRow;
  const n = b.noul ?? { instr: [z], yes: [z], no: [z], hasCrit: [0], base: [0] };
  const c = b.choice ?? { line: [z], instr: [z], base: [0], pair: [0, 0] };
  const s = b.score ?? { line: [z], instr: [z], base: [0], pair: [0, 0], position: [0], count: [0], signed: [0], scale: [0], mirror: [0], question: [0] };
  return {
    index: { rowText: Array.from(b.rowText), noulInstr: n.instr, noulYes: n.yes, noulNo: n.no, choiceLine: c.line, choiceInstr: c.instr, scoreLine: s.line, scoreInstr: s.instr, scoreMirror: s.mirror, scoreQuestion: s.question },
    value: { noulCrit: n.hasCrit, noulBase: n.base, choiceBase: c.base, scoreBase: s.base, scoreExtra: s.position.flatMap((p, i) => [p, s.count[i]!]), scoreSigned: s.signed, scoreScale: s.scale, choicePair: c.pair, scorePair: s.pair },
  };
}

export class OnnxReader {
  readonly backend = 'onnxruntime-node' as const;

  private constructor(
    private readonly ort: OrtModule,
    private readonly session: OrtSession,
    readonly reader: LoadedReader,
  ) {}

  /** Builds the model from the reader's loaded parameters and opens its session. */
  static async create(reader: LoadedReader, options: OnnxReaderOptions = {}): Promise<OnnxReader> {
    const ort = await loadOnnxRuntime(options.module);
    // One intra-op thread whatever the engine's: with two, a product's columns are split between
    // threads by batch size, which changes how a row's terms are summed, so a question's logits
    // depended on the rest of its batch (11 of 76 generated questions; see heads/native/runner.ts).
    // No memory patterns: onnxruntime plans one per set of input shapes, and nearly every
    // request brings new ones (state tokens, rows, texts), so planning cost time (measured
    // about 0.5 ms a request) and the plans would pile up.
    const session = await ort.InferenceSession.create(readerModel(reader.shape, reader.members), {
      ...sessionOptions(1),
      enableMemPattern: false,
    });
    return new OnnxReader(ort, session, reader);
  }

  /** The feeds of one batch, dims from the padded sizes (the group axis dropped: one group). */
  private feeds(b: ReaderBatchData): Record<string, OrtTensor> {
    const sizes: Record<string, number> = { M: b.M, R: b.R, T: b.T };
    const { index, value } = typeFeeds(b);
    sizes.N = index.noulInstr!.length;
    sizes.C = index.choiceLine!.length;
    sizes.S = index.scoreLine!.length;
    const arrays: Record<string, Float32Array> = { ...b.arrays };
    for (const [name, v] of Object.entries(value)) arrays[name] = Float32Array.from(v);
    const out: Record<string, OrtTensor> = {};
    for (const [name, dims] of Object.entries(READER_FLOAT_INPUTS)) {
      out[name] = new this.ort.Tensor('float32', arrays[name]!, dims.map((d) => (typeof d === 'number' ? d : sizes[d]!)));
    }
    for (const [name, v] of Object.entries(index)) out[name] = new this.ort.Tensor('int64', BigInt64Array.from(v, (i) => BigInt(i)), [v.length]);
    return out;
  }

  /** The same as `readerLogits` (logits.ts), computed natively. */
  async logits(state: ReaderText, questions: readonly ReaderQuestion[]): Promise<number[][]> {
    const out: number[][] = new Array<number[]>(questions.length);
    for (const chunk of chunkQuestions(questions, state.n, this.reader.shape.heads)) {
      const batch = readerBatchData([{ state, questions: chunk.map((i) => questions[i]!) }]);
      const res = await this.session.run(this.feeds(batch));
      const perMember = this.reader.members.map((_, m) =>
        questionLogits(batch, {
          noul: batch.noul ? floatOutput(res[`noul_${m}`], `noul_${m}`) : undefined,
          choice: batch.choice ? floatOutput(res[`choice_${m}`], `choice_${m}`) : undefined,
          score: batch.score ? floatOutput(res[`score_${m}`], `score_${m}`) : undefined,
        }),
      );
      averageInto(out, chunk, perMember);
    }
    return out;
  }

  dispose(): void {
    void this.session.release().catch(() => undefined);
  }
}
