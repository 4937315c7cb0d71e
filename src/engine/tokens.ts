/**
 * How the engine turns text into tokens, shared by the in-process engine and the pool's
 * routing thread (which loads no model).
 * @module
 */
import { createTokenizer, type Tokenizer, type Vocabulary } from '../tokenizer/index.js';

/**
 * The engine's tokenizer: the reference segmentation, except that each character the
 * vocabulary has no piece for is its own unknown token (not one token per run), so that token
 * counts, budgets, rate limits and usage grow with any text (docs/limits.md, "Text outside the
 * vocabulary").
 */
export function engineTokenizer(vocabulary: Vocabulary): Tokenizer {
  return createTokenizer(vocabulary, { unknown: 'per-character' });
}

