/**
 * Serving the reader inside the engine. The state's cached encoding (per-token states, computed
 * once per request) is shared by every question; each question's own texts (instructions,
 * outcome lines) are encoded on their own and cached by text, since rubrics and option sets
 * repeat across requests far more than states do. Every question is answered from its own
 * texts and the state only, never from its id or from other questions of the request.
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { RenderedQuestion } from '../../canonical/index.js';
import type { StateEncoding } from '../../encoder/index.js';
import type { Answer, Question } from '../../types.js';
import { choiceAnswer, noulAnswer, scoreAnswer, softmax } from '../answers.js';
import { questionTexts } from '../texts.js';
import type { ReaderQuestion, ReaderText } from './batch.js';
import { readerFor, type ReaderHeadsSpec } from './load.js';
import { readerLogits, type LoadedReader } from './logits.js';
import { sharedLogits, type HeadsHelper } from './remote.js';
import { bucketOf } from './weights.js';

/** Bytes of question-text encodings kept across requests (2 KiB per token state). */
export const TEXT_CACHE_BYTES = 32 * 1024 * 1024;

/** Token ids of a text, as the engine tokenizes it. */
export type Tokenize = (text: string) => number[];
/** Encodes token ids into per-token states and a pooled vector. */
export type EncodeIds = (ids: readonly number[]) => Promise<StateEncoding>;

const EMPTY: ReaderText = { tokens: new Float32Array(0), n: 0, ids: [] };

/** Calibrated outcome probabilities from raw logits (temperature per type and option count). */
export function calibrated(reader: Pick<LoadedReader, 'temperatures'>, type: RenderedQuestion['type'], logits: readonly number[]): number[] {
  const t = reader.temperatures[bucketOf(type, logits.length)] ?? 1;
  return softmax(logits.map((l) => l / t));
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
  private readonly texts = new LRUCache<string, Promise<ReaderText>>({
    maxSize: TEXT_CACHE_BYTES,
    sizeCalculation: (_v, key) => key.length * 2 + 4096,
  });
  /** Encoder passes run for question texts. */
  passes = 0;
  /** An idle peer thread that may take some of a request's questions (engine pool; remote.ts). */
  helper: HeadsHelper | null = null;

  constructor(
    private readonly tokenize: Tokenize,
    private readonly encodeIds: EncodeIds,
    private readonly weightsDir: string,
  ) {}

  private async encode(text: string): Promise<ReaderText> {
    if (text === '') return EMPTY;
    let hit = this.texts.get(text);
    if (!hit) {
      this.passes++;
      const ids = this.tokenize(text);
      hit = this.encodeIds(ids).then((e) => ({ tokens: e.tokenStates, n: e.tokenCount, ids }));
      hit.catch(() => this.texts.delete(text));
      // Long texts (structured instructions with documents) are encoded but not kept.
      if (text.length <= 4096) this.texts.set(text, hit);
    }
    return hit;
  }

  reader(spec: ReaderHeadsSpec): LoadedReader {
    return readerFor(spec, this.weightsDir);
  }

  /** Raw logits of questions against a state, for another thread's request (remote.ts). */
  logitsFor(spec: ReaderHeadsSpec, state: ReaderText, questions: readonly ReaderQuestion[]): number[][] {
    return readerLogits(this.reader(spec), state, questions);
  }

  /** Answers every question of a request against one state encoding whose token ids are `stateIds`. */
  async answerAll(
    spec: ReaderHeadsSpec,
    request: { questions: Readonly<Record<string, Question>>; rendered: readonly (readonly [string, RenderedQuestion])[] },
    state: StateEncoding,
    stateIds: readonly number[],
  ): Promise<Map<string, Answer>> {
    const reader = this.reader(spec);
    const { questions, rendered } = request;
    const inputs: ReaderQuestion[] = await Promise.all(
      rendered.map(async ([, r]) => {
        const t = questionTexts(r);
        const [instructions, ...lines] = await Promise.all([this.encode(t.instructions), ...t.lines.map((l) => this.encode(l))]);
        return { type: r.type, instructions: instructions!, lines };
      }),
    );
    const stateText: ReaderText = { tokens: state.tokenStates, n: state.tokenCount, ids: stateIds };
    const raw = await sharedLogits(spec, stateText, inputs, (qs) => readerLogits(reader, stateText, qs), this.helper);
    const out = new Map<string, Answer>();
    rendered.forEach(([id, r], i) => out.set(id, answerFromProbabilities(questions[id]!, r, calibrated(reader, r.type, raw[i]!))));
    return out;
  }
}
