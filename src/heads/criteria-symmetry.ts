/**
 * Exact symmetry of yes/no questions under swapped criteria: asking with the yes and no criteria
 * exchanged must give the complement. The reader's own part is antisymmetric by construction
 * (its criteria readout is a difference of the two lines' scores), but the heads it corrects
 * read each line through features that are not (session 7: 0.057 mean deviation on the corpus's
 * held-out pairs). So each such question is also asked with its lines swapped, and its yes
 * log-odds become half the difference of the two readings: d(q) = (l(q) - l(q')) / 2 and
 * d(q') = -d(q) for any heads, at the cost of one more question's heads pass per question that
 * has criteria. Questions without criteria (both lines empty, or equal) are left as they are.
 * The heads' zero-shot term reads the swapped question's own rendered outcomes, so the engine
 * embeds those too (`swappedRenderings`).
 * @module
 */
import { renderQuestion, type RenderedQuestion } from '../canonical/index.js';
import type { Question } from '../types.js';
import { questionTexts } from './texts.js';

/**
 * The rendering of a yes/no question asked with its yes and no criteria exchanged, or null when
 * that is the same question (no criteria, or the same for both).
 */
export function swappedRendering(question: Question, rendered: RenderedQuestion): RenderedQuestion | null {
  if (question.type !== 'noul' || rendered.type !== 'noul') return null;
  const [yes, no] = questionTexts(rendered).lines;
  if (yes === no) return null;
  const c = question.criteria ?? {};
  return renderQuestion({ ...question, criteria: { true: c.false ?? null, false: c.true ?? null } });
}

/** The swapped renderings of a request's questions that have one (their outcomes are embedded too). */
export function swappedRenderings(questions: Readonly<Record<string, Question>>, rendered: readonly (readonly [string, RenderedQuestion])[]): RenderedQuestion[] {
  return rendered.flatMap(([id, r]) => swappedRendering(questions[id]!, r) ?? []);
}

/** What the heads read of a question, as far as this needs: its type and its outcome lines. */
interface Lined {
  type: 'noul' | 'choice' | 'score';
  lines: readonly unknown[];
}

/**
 * The inputs followed by a copy of each yes/no question whose two criteria texts (`lineTexts`,
 * parallel to `inputs`) differ, with its lines exchanged; `swapped` lists those questions.
 */
export function withSwappedCriteria<T extends Lined>(inputs: readonly T[], lineTexts: readonly (readonly string[])[]): { all: T[]; swapped: number[] } {
  const swapped: number[] = [];
  inputs.forEach((q, i) => {
    const t = lineTexts[i]!;
    if (q.type === 'noul' && t.length === 2 && t[0] !== t[1]) swapped.push(i);
  });
  const copies = swapped.map((i) => ({ ...inputs[i]!, lines: [inputs[i]!.lines[1], inputs[i]!.lines[0]] }) as T);
  return { all: [...inputs, ...copies], swapped };
}

/**
 * Logits of the original questions (the first `n` of `logits`): each swapped question's become
 * [(d - d') / 2, 0], where d = yes - no of its own reading and d' of its swapped copy's.
 */
export function symmetricLogits(logits: readonly (readonly number[])[], n: number, swapped: readonly number[]): number[][] {
  const out = logits.slice(0, n).map((l) => [...l]);
  swapped.forEach((i, k) => {
    const own = logits[i]!;
    const other = logits[n + k]!;
    out[i] = [(own[0]! - own[1]! - (other[0]! - other[1]!)) / 2, 0];
  });
  return out;
}
