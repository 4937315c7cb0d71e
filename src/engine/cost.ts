/**
 * The work a request will cost, estimated before any encoding from what tokenizing it already
 * gave: the engine refuses a request over its work cap (a 422 naming the limit), and the
 * server charges each key's work bucket with it.
 *
 * The unit is the state-token equivalent: one token of a long state costs one unit (every
 * token is one row of the encoder's 128-token windows). Question texts cost more per token:
 * every instruction and every option line is encoded as its own short sequence (and, for the
 * trained heads' zero-shot term, every option again after its instructions), and the heads
 * align each of their tokens with every state token. The coefficients are measured by
 * `bench/cost.ts` on the development machine (see docs/http.md, "Cost of a request"); re-run
 * it when the heads change.
 * @module
 */
import type { ValidationError } from '../types.js';

/** What the estimate reads of a request. */
export interface WorkParts {
  /** Tokens of the canonical state. */
  stateTokens: number;
  /** Per question: tokens of its full text (counted in usage) and its number of outcomes. */
  questions: readonly { tokens: number; outcomes: number }[];
}

/** Units per question-text token (encoded as short sequences, some twice). */
export const QUESTION_TOKEN_UNITS = 2.5;
/** Units per outcome: a sequence of its own (fixed cost of a short sequence). */
export const OUTCOME_UNITS = 8;
/** Units per (state token x outcome): the heads' alignment of option lines with the state. */
export const STATE_OUTCOME_UNITS = 1 / 200;

/**
 * Default cap on one request's estimated work: 100,000 units, about 50 s of one core at the
 * 2,000 units/s an idle development machine runs (twice that on the shared one). Any state
 * the 32k per-question budget allows, with a few hundred options, fits; 48 choice questions of
 * 255 options (60k tokens, about 250,000 units) do not.
 */
export const DEFAULT_MAX_REQUEST_WORK = 100_000;

/** Estimated work of a request, in state-token equivalents (rounded up). */
export function workUnits(parts: WorkParts): number {
  let units = parts.stateTokens;
  for (const q of parts.questions) {
    units += QUESTION_TOKEN_UNITS * q.tokens + OUTCOME_UNITS * q.outcomes + STATE_OUTCOME_UNITS * parts.stateTokens * q.outcomes;
  }
  return Math.ceil(units);
}

/**
 * Units per token of a premise/hypothesis pair a `transformers-nli` model reads. Such a model
 * reads the whole state once per (question, outcome) pair, through a cross-encoder at least as
 * large as the built-in encoder, so one unit per token and pair is a lower bound of its cost (no
 * real NLI model could be measured here: none can be downloaded).
 */
export const NLI_PAIR_TOKEN_UNITS = 1;

/**
 * Estimated work of a request to a `transformers-nli` model: every outcome is one pair of the
 * whole state with that outcome's text (token counts by the built-in tokenizer, a proxy).
 */
export function nliWorkUnits(parts: { stateTokens: number; outcomeTokens: readonly number[] }): number {
  let units = 0;
  for (const t of parts.outcomeTokens) units += NLI_PAIR_TOKEN_UNITS * (parts.stateTokens + t);
  return Math.ceil(units);
}

/** The 422 entry for a request whose estimated work is over `limit`. */
export function tooMuchWork(estimate: number, limit: number): ValidationError {
  return {
    loc: ['body'],
    msg: `Request would cost about ${estimate} work units (state-token equivalents), more than the limit of ${limit} per request; send fewer or shorter questions or options, or a shorter state`,
    type: 'too_much_work',
    input: estimate,
    ctx: { limit, estimate },
  };
}
