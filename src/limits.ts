/**
 * Documented limits of the interface (its specification's "Limits"), in one place so that validation,
 * the engine and the documentation cannot drift apart.
 * @module
 */

/**
 * Most options one `choice` question may list. The interface schema sets no maximum; its
 * documentation gives 255 as the bound, and this library enforces it (422, `too_long`) rather than
 * silently degrading on larger option sets.
 */
export const MAX_CHOICE_OPTIONS = 255;

/**
 * Most levels one `score` question may list. The schema sets no maximum; the documentation
 * accepts up to 10, and this library enforces it (422, `too_long`).
 */
export const MAX_SCORE_LEVELS = 10;

/**
 * Token budget of a whole request ("64k tokens"): the state plus all questions together.
 * Checked after tokenisation, since only the tokenizer knows the count.
 */
export const REQUEST_TOKEN_BUDGET = 65_536;

/**
 * Token budget of one question ("32k tokens"): the state plus the single longest question.
 * Each question is evaluated against the state on its own, so each pair must fit.
 */
export const QUESTION_TOKEN_BUDGET = 32_768;

/**
 * Deepest nesting of arrays and objects accepted inside one content value (the state, an
 * `instructions`, a criterion). Rendering content to text walks it recursively; this bound
 * keeps that walk far from the call-stack limit whatever a caller sends.
 */
export const MAX_NESTING_DEPTH = 64;
