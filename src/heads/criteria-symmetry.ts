/**
 * Exact symmetry of yes/no questions under swapped criteria: asking with the yes and no criteria
 * exchanged must give the complement. The reader's own part is antisymmetric by construction
 * (its criteria readout is a difference of the two lines' scores), but the heads it corrects
 * read each line through features that are not (session 7: 0.057 mean deviation on the corpus's
 * held-out pairs). So each such question is also asked with its lines swapped, and its yes
 * log-odds become half the difference of the two readings: d(q) = (l(q) - l(q')) / 2 and
 * d(q') = -d(q) for any heads, at the cost of one more question's heads pass per question that
 * has criteria. Questions without criteria (both lines empty, or equal) are left as they are.
 * The engine renders the swapped questions once per request (`swappedRenderings`): it embeds their
 * outcomes, which the heads' zero-shot term reads, and hands them to the heads.
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

/** Per question of a request, its swapped rendering or null (`swappedRendering`); the engine embeds their outcomes too. */
export function swappedRenderings(questions: Readonly<Record<string, Question>>, rendered: readonly (readonly [string, RenderedQuestion])[]): (RenderedQuestion | null)[] {
  return rendered.map(([id, r]) => swappedRendering(questions[id]!, r));
}

/** What the heads read of a question, as far as this needs: its outcome lines. */
interface Lined {
  lines: readonly unknown[];
}

/**
 * The inputs followed by a copy, with its two lines exchanged, of each question that has a
 * swapped rendering (`swaps`, parallel to `inputs`); `swapped` lists those questions.
 */
export function withSwappedCriteria<T extends Lined>(inputs: readonly T[], swaps: readonly unknown[]): { all: T[]; swapped: number[] } {
  const swapped = inputs.flatMap((_, i) => (swaps[i] == null ? [] : [i]));
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
