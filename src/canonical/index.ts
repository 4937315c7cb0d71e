/**
 * The canonicalizer: one deterministic text rendering of the state and of each question,
 * between validation and the tokenizer. Pure functions, no I/O, no dependency on the encoder.
 * See `docs/canonical-form.md` for the rendering rules with examples.
 * @module
 */
export { renderState } from './state.js';
export { renderQuestion, type RenderedQuestion } from './question.js';
export { findQuestionField, renderInstructions, type RenderedInstructions } from './instructions.js';
export { renderContent } from './render-value.js';
export { flattenWhitespace, sanitizeLabel, sanitizeText } from './sanitize.js';
