/**
 * The zero-shot NLI reading of a question: which hypotheses the cross-encoder checks against
 * the state (the premise), and how their logits become the answer's probabilities.
 *
 * - choice: one hypothesis per option, `<instructions> <option>: <description>`; probabilities
 *   are a softmax over the options' entailment logits (the usual zero-shot classification
 *   method for NLI models).
 * - score: one hypothesis per level, `<instructions> <description>`, softmax over the levels'
 *   entailment logits. The level's number is left out of the text, so reversing the rubric only
 *   reorders the same hypotheses, and the answer mirrors exactly.
 * - noul: entailment against contradiction. With a `true` criterion, the hypothesis
 *   `<instructions> <true criterion>` is evidence for yes; with a `false` criterion,
 *   `<instructions> <false criterion>` is evidence for no; with neither, the instructions
 *   themselves are the hypothesis. The logit of yes is the entailment-minus-contradiction
 *   margin of the yes side, minus that of the no side, halved when both are present; so
 *   swapping the two criteria gives exactly 1 - p.
 *
 * Each answer depends only on its own question's texts and the state.
 * @module
 */
import { flattenWhitespace, type RenderedQuestion } from '../canonical/index.js';
import { choiceAnswer, noulAnswer, scoreAnswer } from '../heads/index.js';
import type { Answer, Question } from '../types.js';

/** Fixed label that the canonical renderer puts before each outcome's own text. */
const PREFIX: Record<RenderedQuestion['type'], RegExp> = {
  noul: /^(?:Yes|No)(?:\.|:\s*)/,
  choice: /^Answer:\s*/,
  score: /^Level \d+ of \d+(?::\s*)?/,
};

/** The hypotheses of one question. */
export interface QuestionHypotheses {
  /** Every distinct hypothesis text, sorted: the order in which they are run. */
  texts: string[];
  /** choice and score: each outcome's hypothesis, parallel to `rendered.keys`. */
  outcomes: string[];
  /** noul: the hypothesis for yes and the one for no (null where its criterion is absent). */
  yes: string | null;
  no: string | null;
}

/** Logits of one hypothesis against the state, by role. */
export interface HypothesisLogits {
  entailment: number;
  contradiction: number;
}

/** Temperatures per type. */
export interface Temperatures {
  noul: number;
  choice: number;
  score: number;
}

function join(instructions: string, line: string): string {
  return flattenWhitespace(instructions === '' ? line : line === '' ? instructions : `${instructions} ${line}`).trim();
}

/** An outcome's own text: the rendered outcome without the instructions and its fixed label. */
function ownLine(rendered: RenderedQuestion, outcome: string): string {
  const instr = rendered.instructions;
  const line = instr === '' ? outcome : outcome.slice(instr.length + 1);
  return line.replace(PREFIX[rendered.type], '').trim();
}

/** The hypotheses of a rendered question. */
export function questionHypotheses(rendered: RenderedQuestion): QuestionHypotheses {
  const lines = rendered.outcomes.map((o) => ownLine(rendered, o));
  if (rendered.type === 'noul') {
    const [yesLine = '', noLine = ''] = lines;
    let yes = yesLine === '' ? null : join(rendered.instructions, yesLine);
    const no = noLine === '' ? null : join(rendered.instructions, noLine);
    if (yes === null && no === null) yes = join(rendered.instructions, '');
    const texts = [...new Set([yes, no].filter((t): t is string => t !== null))].sort();
    return { texts, outcomes: [], yes, no };
  }
  const outcomes = lines.map((line) => join(rendered.instructions, line));
  return { texts: [...new Set(outcomes)].sort(), outcomes, yes: null, no: null };
}

/**
 * Softmax whose result does not depend on the order of the logits, bit for bit: the
 * exponentials are added up in sorted order. So reordering options or reversing a rubric
 * reorders the probabilities and changes none of them.
 */
export function orderFreeSoftmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const exps = logits.map((l) => Math.exp(l - max));
  const total = [...exps].sort((a, b) => a - b).reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** Entailment minus contradiction: the log-odds that the hypothesis holds rather than not. */
function margin(l: HypothesisLogits): number {
  return l.entailment - l.contradiction;
}

/** The typed answer from the logits of the question's hypotheses. */
export function answerFromLogits(
  question: Question,
  rendered: RenderedQuestion,
  hypotheses: QuestionHypotheses,
  logits: ReadonlyMap<string, HypothesisLogits>,
  temperature: Temperatures,
): Answer {
  const of = (text: string): HypothesisLogits => {
    const l = logits.get(text);
    if (!l) throw new Error(`no logits for hypothesis '${text}'`);
    return l;
  };
  switch (question.type) {
    case 'noul': {
      const { yes, no } = hypotheses;
      const z = yes !== null && no !== null ? (margin(of(yes)) - margin(of(no))) / 2 : yes !== null ? margin(of(yes)) : -margin(of(no!));
      return noulAnswer(1 / (1 + Math.exp(-z / temperature.noul)));
    }
    case 'choice':
      return choiceAnswer(rendered.keys, orderFreeSoftmax(hypotheses.outcomes.map((t) => of(t).entailment / temperature.choice)));
    case 'score':
      return scoreAnswer(question.criteria, orderFreeSoftmax(hypotheses.outcomes.map((t) => of(t).entailment / temperature.score)));
    default: {
      const unreachable: never = question;
      throw new Error(`Unknown question type ${JSON.stringify(unreachable)}`);
    }
  }
}
