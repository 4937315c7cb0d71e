/**
 * Serving the trained late-interaction heads inside the engine. The state's cached encoding
 * (pooled + per-token states, computed once per request) is shared by every question; each
 * question's own texts (instructions, outcome lines) are encoded on their own and cached by
 * text, since rubrics and option sets repeat across requests far more than states do.
 * Every question is answered from its own texts and the state only, never from its id or from
 * other questions of the request.
 * @module
 */
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { RenderedQuestion } from '../canonical/index.js';
import { abortReason } from '../encoder/abort.js';
import type { StateEncoding } from '../encoder/index.js';
import type { Answer, Question, State } from '../types.js';
import { pairSimilarities } from './fields.js';
import { choiceAnswer, noulAnswer, scoreAnswer } from './answers.js';
import { symmetricLogits, withSwappedCriteria } from './criteria-symmetry.js';
import type { TextRep } from './late.js';
import { questionTexts } from './texts.js';
import { correctAnswers, correctAnswersWith } from './reader/correct.js';
import { readerFor } from './reader/load.js';
import { readerBackendFor } from './reader/native.js';
import { headsBackendFor, type HeadsLogitsFn } from './native/backend.js';
import type { PartBackendReport } from '../onnx/native-part.js';
import { sharedLogits, type HeadsHelper } from './remote.js';
import { requestLogits, type QuestionInput } from './request-logits.js';
import { calibrated, loadHeads, zeroShotTerm, type TrainedHeads, type TrainedHeadsSpec } from './trained.js';

/** Bytes of question-text encodings kept across requests. */
export const TEXT_CACHE_BYTES = 32 * 1024 * 1024;

/** Token ids of a text, as the engine tokenizes it. */
export type Tokenize = (text: string) => number[];
/** Encodes token ids into per-token states and a pooled vector; stops at the next window once `signal` aborts. */
export type EncodeIds = (ids: readonly number[], signal?: AbortSignal) => Promise<StateEncoding>;

const EMPTY: TextRep = { tokens: new Float32Array(0), n: 0, pooled: new Float32Array(512) };

function toRep(e: StateEncoding, ids: readonly number[]): TextRep {
  return { tokens: e.tokenStates, n: e.tokenCount, pooled: e.pooled, ids };
}

/** Answers one question from its probabilities over outcomes. */
export function answerFromProbabilities(question: Question, rendered: RenderedQuestion, probs: readonly number[]): Answer {
  switch (question.type) {
    case 'noul':
      return noulAnswer(probs[0]!);
    case 'choice':
      return choiceAnswer(rendered.keys, probs);
    case 'score':
      return scoreAnswer(question.criteria, probs);
  }
}

export class TrainedHeadsRunner {
  private readonly texts = new LRUCache<string, { rep: Promise<TextRep>; signal: AbortSignal | undefined }>({
    maxSize: TEXT_CACHE_BYTES,
    sizeCalculation: (_v, key) => key.length * 2 + 4096,
  });
  /** Encoder passes run for question texts. */
  passes = 0;
  /** An idle peer thread that may take some of a request's questions (engine pool; remote.ts). */
  helper: HeadsHelper | null = null;

  /** What serves the trained heads, once a request has used them (engine.stats().heads). */
  headsBackend: PartBackendReport | null = null;

  /** What serves the reader, once a request has used it (engine.stats().reader). */
  readerBackend: PartBackendReport | null = null;

  constructor(
    private readonly tokenize: Tokenize,
    private readonly encodeIds: EncodeIds,
    private readonly weightsDir: string,
    /** The encoder's backend: the heads and the reader run on onnxruntime-node only where the encoder does (native/backend.ts, reader/native.ts). */
    private readonly native: { encoderBackend: string } = { encoderBackend: 'none' },
  ) {}

  /**
   * A question text's encoding, shared by every request that asks it. The pass runs under the
   * signal of the request that started it; a request that finds it aborted by that other
   * request (and is not aborted itself) starts the pass again under its own signal.
   */
  private async encode(text: string, signal?: AbortSignal): Promise<TextRep> {
    if (text === '') return EMPTY;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      let hit = this.texts.get(text);
      if (!hit) {
        this.passes++;
        const ids = this.tokenize(text);
        hit = { rep: this.encodeIds(ids, signal).then((e) => toRep(e, ids)), signal };
        const entry = hit;
        entry.rep.catch(() => this.texts.get(text) === entry && this.texts.delete(text));
        // Long texts (structured instructions with documents) are encoded but not kept.
        if (text.length <= 4096) this.texts.set(text, hit);
      }
      try {
        return await hit.rep;
      } catch (e) {
        if (hit.signal === signal || !hit.signal?.aborted) throw e;
      }
    }
  }

  /** Whether these heads add the zero-shot term (and so need pooled outcome embeddings). */
  needsOutcomes(spec: TrainedHeadsSpec): boolean {
    const { mix } = this.heads(spec);
    return mix.noul > 0 || mix.choice > 0 || mix.score > 0;
  }

  heads(spec: TrainedHeadsSpec): TrainedHeads {
    return loadHeads(spec, this.weightsDir);
  }

  /**
   * What computes these heads' raw logits: onnxruntime-node beside a native encoder when the
   * heads' graphs pass their self-test, else tfjs (`requestLogits`); both give each question's
   * logits whatever else shares its batch.
   */
  private async logitsOf(spec: TrainedHeadsSpec): Promise<HeadsLogitsFn> {
    const heads = this.heads(spec);
    // On one intra-op thread whatever the engine's (native/runner.ts says why).
    const { runner, report } = await headsBackendFor(heads, this.native.encoderBackend);
    this.headsBackend = report;
    return runner ? (s, qs) => runner.logits(s, qs) : (s, qs) => requestLogits(heads.members, s, qs);
  }

  /** Raw logits of questions against a state, for another thread's request (remote.ts), on the backend this thread's own requests use. */
  async logitsFor(spec: TrainedHeadsSpec, state: TextRep, questions: readonly QuestionInput[]): Promise<number[][]> {
    return (await this.logitsOf(spec))(state, questions);
  }

  /**
   * Answers every question of a request against one state encoding (`state`, the encoding of
   * `request.state`, whose token ids are `stateIds`).
   */
  async answerAll(
    spec: TrainedHeadsSpec,
    request: {
      state: State;
      questions: Readonly<Record<string, Question>>;
      rendered: readonly (readonly [string, RenderedQuestion])[];
      /** Per question, its rendering with the noul criteria swapped, or null (`swappedRenderings`). */
      swaps: readonly (RenderedQuestion | null)[];
    },
    state: StateEncoding,
    stateIds: readonly number[],
    outcomeVectors: ReadonlyMap<string, Float32Array> | null = null,
    signal?: AbortSignal,
  ): Promise<Map<string, Answer>> {
    const heads = this.heads(spec);
    const { questions, rendered, swaps } = request;
    const pairs = pairSimilarities(rendered.map(([id]) => questions[id]!), request.state, stateIds, state.tokenStates, this.tokenize);
    const inputs = await Promise.all(
      rendered.map(async ([, r], i) => {
        const t = questionTexts(r);
        const [instructions, ...lines] = await Promise.all([this.encode(t.instructions, signal), ...t.lines.map((l) => this.encode(l, signal))]);
        return { type: r.type, instructions: instructions!, lines, pair: pairs[i]! };
      }),
    );
    if (signal?.aborted) throw abortReason(signal);
    // All questions in one batch (see request-logits.ts): same logits as one by one, so a
    // tail of them may go to a helper thread.
    const stateRep = toRep(state, stateIds);
    // Yes/no questions with criteria are also read with them swapped (criteria-symmetry.ts).
    const { all, swapped } = withSwappedCriteria(inputs, swaps);
    const headsLogits = await this.logitsOf(spec);
    if (signal?.aborted) throw abortReason(signal);
    const allRaw = await sharedLogits(spec, stateRep, all, (qs) => headsLogits(stateRep, qs), this.helper);
    const allRendered = [...rendered.map(([, r]) => r), ...swapped.map((i) => swaps[i]!)];
    const mixed = all.map((_, i) => {
      const r = allRendered[i]!;
      const w = heads.mix[r.type];
      if (w === 0 || !outcomeVectors) return allRaw[i]!;
      const zs = zeroShotTerm(r.type, state.pooled, r.outcomes.map((o) => outcomeVectors.get(o)!));
      return allRaw[i]!.map((l, k) => l + w * zs[k]!);
    });
    const logits = symmetricLogits(mixed, inputs.length, swapped);
    let probabilities = rendered.map(([, r], i) => calibrated(heads, r.type, logits[i]!));
    // The reader (when the model has one) corrects these answers from the state's token states.
    if (spec.reader) {
      const reader = readerFor(spec.reader, this.weightsDir);
      // The reader's session runs on one intra-op thread whatever the engine's (onnx-runner.ts
      // says why); its many small nodes gain nothing from a second one (docs/performance.md).
      const { runner: native, report } = await readerBackendFor(reader, this.native.encoderBackend);
      this.readerBackend = report;
      if (signal?.aborted) throw abortReason(signal);
      const asText = (t: TextRep) => ({ tokens: t.tokens, n: t.n, ids: t.ids ?? [] });
      const answered = inputs.map((q, i) => ({ type: q.type, instructions: asText(q.instructions), lines: q.lines.map(asText), fieldPair: q.pair, probabilities: probabilities[i]! }));
      probabilities = native
        ? await correctAnswersWith(reader, (s, qs) => native.logits(s, qs), asText(stateRep), answered)
        : correctAnswers(reader, asText(stateRep), answered);
    }
    const out = new Map<string, Answer>();
    rendered.forEach(([id, r], i) => out.set(id, answerFromProbabilities(questions[id]!, r, probabilities[i]!)));
    return out;
  }
}

/** The weights folder next to a registry manifest file. */
export function weightsDirOf(manifestPath: string): string {
  return path.dirname(manifestPath);
}
