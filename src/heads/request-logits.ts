/**
 * Raw logits of every question of a request in a few tensor calls, not a few per question.
 *
 * Answering question by question cost about 3 ms of fixed overhead each (the state's token
 * states uploaded, normalised and transposed again by every `alignTexts` call, and per member a
 * batch built, run and read back), more than the arithmetic itself. Here the questions of a
 * request share one `alignTexts` call and one `buildBatch`, and each ensemble member runs one
 * `forward` over that batch; questions are split into chunks only to bound the dense matrices.
 *
 * Each answer stays bit-for-bit what the question gets alone, whatever else the request asks:
 * every product in `alignTexts` and `forward` either treats rows independently (XNNPACK runs
 * each output row's dot products in the same order whatever the row count) or sums a text's own
 * rows through a 0/1 (or 1/K) membership matrix, where the other questions' entries add exact
 * zeros. `test/speed-invariance.test.ts` and the engine property tests check this on the real
 * weights; `test/heads-batch.test.ts` against each question as a batch of one. Beside a native
 * encoder the same chunks run on onnxruntime-node (native/runner.ts), with the same helpers.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import type { RenderedQuestion } from '../canonical/index.js';
import { buildBatch, type BatchQuestion } from './batch.js';
import { alignTexts, boundLogits, forward, type Aligned, type Params, type TextRep } from './late.js';

/** One question's encoded texts, as `questionLogits` takes them. */
export interface QuestionInput {
  type: RenderedQuestion['type'];
  instructions: TextRep;
  /** One per outcome (noul: the yes and no criteria, possibly empty texts). */
  lines: readonly TextRep[];
  /** Cosine between the two state fields the question compares (fields.ts), or null. */
  pair?: number | null;
}

/** Texts of one chunk at most (the batch's membership matrices are texts x tokens). */
export const CHUNK_TEXTS = 512;
/** Text tokens of one chunk at most. */
export const CHUNK_TOKENS = 4096;
/** Cells of a chunk's similarity matrix (text tokens x state tokens) at most, 16 MiB. */
export const CHUNK_CELLS = 1 << 22;

export const textsOf = (q: QuestionInput): TextRep[] => [q.instructions, ...q.lines];

/**
 * Consecutive runs of questions whose texts, tokens and similarity cells stay under the
 * bounds; a question over a bound on its own is a chunk by itself, as it was before batching.
 */
export function chunkQuestions(questions: readonly QuestionInput[], stateTokens: number): number[][] {
  const maxTokens = Math.min(CHUNK_TOKENS, Math.floor(CHUNK_CELLS / Math.max(1, stateTokens)));
  const chunks: number[][] = [];
  let current: number[] = [];
  let texts = 0;
  let tokens = 0;
  questions.forEach((q, i) => {
    const t = textsOf(q);
    const n = t.reduce((s, x) => s + x.n, 0);
    if (current.length > 0 && (texts + t.length > CHUNK_TEXTS || tokens + n > maxTokens)) {
      chunks.push(current);
      current = [];
      texts = 0;
      tokens = 0;
    }
    current.push(i);
    texts += t.length;
    tokens += n;
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Per type, a member's outputs of a batch: noul [questions], choice and score [their lines]. */
export interface MemberOutputs {
  noul?: ArrayLike<number> | undefined;
  choice?: ArrayLike<number> | undefined;
  score?: ArrayLike<number> | undefined;
}

/** One member's logits per question in batch order, on the trained scale, from its outputs. */
export function logitsFromOutputs(questions: readonly Pick<BatchQuestion, 'type' | 'lines'>[], out: MemberOutputs): number[][] {
  const at = { noul: 0, choice: 0, score: 0 };
  return questions.map((q) => {
    if (q.type === 'noul') return [out.noul![at.noul++]!, 0];
    const values = q.type === 'choice' ? out.choice! : out.score!;
    const start = at[q.type];
    at[q.type] += q.lines.length;
    return boundLogits(Array.from({ length: q.lines.length }, (_, k) => values[start + k]!));
  });
}

/** One member's logits of a batch, per question in batch order, on the trained scale. */
function memberLogits(p: Params, batch: ReturnType<typeof buildBatch>, questions: readonly BatchQuestion[]): number[][] {
  const out = forward(p, batch);
  // One read-back per output kind: noul [questions], choice and score [their lines].
  return logitsFromOutputs(questions, { noul: out.noul?.dataSync(), choice: out.choice?.dataSync(), score: out.score?.dataSync() });
}

/** A chunk's questions with their texts' alignments (`aligned` in `textsOf` order). */
export function batchQuestionsOf(inputs: readonly QuestionInput[], aligned: readonly Aligned[]): BatchQuestion[] {
  let at = 0;
  return inputs.map((q) => {
    const instructions = aligned[at++]!;
    const lines = aligned.slice(at, at + q.lines.length);
    at += q.lines.length;
    return { type: q.type, instructions, lines, pair: q.pair ?? null };
  });
}

/** Each chunk question's logits, the members' average in member order, into `result`. */
export function averageInto(result: number[][], chunk: readonly number[], perMember: readonly (readonly number[][])[]): void {
  chunk.forEach((qi, k) => {
    const all = perMember.map((m) => m[k]!);
    result[qi] = all[0]!.map((_, j) => all.reduce((s, l) => s + l[j]!, 0) / all.length);
  });
}

/**
 * Raw logits of every question against one state, in input order (each as `questionLogits` in
 * `trained.ts` gives it alone): noul [yes logit, 0], choice and score bounded, one per outcome;
 * an ensemble averages its members in member order.
 */
export function requestLogits(members: readonly Params[], state: TextRep, questions: readonly QuestionInput[]): number[][] {
  const result: number[][] = new Array<number[]>(questions.length);
  for (const chunk of chunkQuestions(questions, state.n)) {
    const inputs = chunk.map((i) => questions[i]!);
    const batchQuestions = batchQuestionsOf(inputs, alignTexts(state, inputs.flatMap(textsOf)));
    // The batch's tensors are built once and read by every member.
    const perMember = tf.tidy(() => {
      const batch = buildBatch(batchQuestions);
      return members.map((p) => memberLogits(p, batch, batchQuestions));
    });
    averageInto(result, chunk, perMember);
  }
  return result;
}
