/**
 * A request's questions on two threads. In an engine pool the state's encoding is shared by
 * both workers' cores (encoder/split.ts), then the trained heads ran on one of them alone:
 * about 12 ms of a 55 ms jevbench-sample request, with the other core idle. An idle peer can
 * take a tail of the questions: it gets the state's token states and those questions' texts,
 * runs the same `requestLogits`, and sends the logits back, while this thread computes the rest.
 *
 * Answers are unchanged: every question's logits depend on its own texts and the state only,
 * whatever other questions share its batch (request-logits.ts; `test/heads-batch.test.ts`), and
 * the helper holds the same heads (same weights files, same model id). A helper that does not
 * answer in time, or fails, leaves its questions to this thread.
 * @module
 */
import { HIDDEN, type TextRep } from './late.js';
import type { QuestionInput } from './request-logits.js';
import type { TrainedHeadsSpec } from './trained.js';

/** Another thread that can compute logits of some questions against a state. */
export interface HeadsHelper {
  /** Whether it is idle now. */
  available(): boolean;
  /** The questions' raw logits (as `requestLogits` gives them), or null if it failed or took too long. */
  logits(spec: TrainedHeadsSpec, state: TextRep, questions: readonly QuestionInput[]): Promise<number[][] | null>;
}

/**
 * Requests with fewer question tokens than this stay on one thread: the hand-off (copying the
 * state's token states, a message each way) would cost about what it saves.
 */
export const MIN_REMOTE_TOKENS = 96;

const tokensOf = (q: QuestionInput) => q.instructions.n + q.lines.reduce((s, l) => s + l.n, 0);

/**
 * Where the helper's share starts: the tail of the questions holding about half of the
 * question-token x state-token work, or -1 when the request is too small to share.
 */
export function remoteFrom(questions: readonly QuestionInput[]): number {
  const tokens = questions.map(tokensOf);
  const total = tokens.reduce((s, n) => s + n, 0);
  if (questions.length < 2 || total < MIN_REMOTE_TOKENS) return -1;
  let here = 0;
  for (let i = 0; i < questions.length; i++) {
    if (here + tokens[i]! / 2 >= total / 2) return Math.max(1, i);
    here += tokens[i]!;
  }
  return questions.length - 1;
}

/** A text's representation with its own buffers (a view would carry its whole buffer across). */
function ownText(t: TextRep): TextRep {
  const out: TextRep = { tokens: t.tokens.slice(0, t.n * HIDDEN), n: t.n, pooled: t.pooled.slice() };
  if (t.ids) out.ids = [...t.ids];
  return out;
}

/** What crosses to the helper: a state and questions with their own compact buffers. */
export function wireInputs(state: TextRep, questions: readonly QuestionInput[]): { state: TextRep; questions: QuestionInput[] } {
  return {
    state: ownText(state),
    questions: questions.map((q) => ({ type: q.type, instructions: ownText(q.instructions), lines: q.lines.map(ownText), pair: q.pair ?? null })),
  };
}

/**
 * Logits of every question in input order: a tail on the helper when it is idle and the
 * request large enough, the rest (or everything) through `local`.
 */
export async function sharedLogits(
  spec: TrainedHeadsSpec,
  state: TextRep,
  questions: readonly QuestionInput[],
  local: (questions: readonly QuestionInput[]) => number[][] | Promise<number[][]>,
  helper: HeadsHelper | null,
): Promise<number[][]> {
  const from = helper?.available() && state.n > 0 ? remoteFrom(questions) : -1;
  if (from < 0) return local(questions);
  const tail = questions.slice(from);
  const away = helper!.logits(spec, state, tail).catch(() => null);
  const head = await local(questions.slice(0, from));
  const theirs = await away;
  return [...head, ...(theirs && theirs.length === tail.length ? theirs : await local(tail))];
}
