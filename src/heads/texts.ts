/**
 * Which texts the trained (late-interaction) heads read for one question, besides the state:
 * the instructions on their own, and one "line" per outcome with its fixed prefix removed
 * (choice `name: description`, score level description, noul criterion). Training and the
 * engine both derive them here, so the features seen in training are the features served.
 * @module
 */
import type { RenderedQuestion } from '../canonical/index.js';

/** Texts of one question the heads encode (each to per-token states plus a pooled vector). */
export interface QuestionTexts {
  /** The rendered instructions ('' when absent). */
  instructions: string;
  /**
   * One text per outcome, parallel to `rendered.keys`: choice `name: description`, score the
   * level's description, noul the criterion for yes / no ('' when that criterion is absent).
   */
  lines: string[];
}

const PREFIX: Record<RenderedQuestion['type'], RegExp> = {
  noul: /^(?:Yes|No)(?:\.|:\s*)/,
  choice: /^Answer:\s*/,
  score: /^Level \d+ of \d+(?::\s*)?/,
};

/** Splits the rendered outcomes into the instructions and the per-outcome lines. */
export function questionTexts(rendered: RenderedQuestion): QuestionTexts {
  const instr = rendered.instructions;
  const lines = rendered.outcomes.map((outcome) => {
    const line = instr === '' ? outcome : outcome.slice(instr.length + 1);
    return line.replace(PREFIX[rendered.type], '').trim();
  });
  return { instructions: instr, lines };
}
