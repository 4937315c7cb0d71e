/**
 * Honest token counts for any script: the engine's tokenizer counts each character the
 * vocabulary cannot cover as one token, so counts (usage, budgets, rate limits) grow at least
 * linearly with any text, and a huge CJK state is refused by the 64k budget.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { flattenWhitespace } from '../src/canonical/index.js';
import { engineTokenizer } from '../src/engine/tokens.js';
import { RequestValidationError } from '../src/errors.js';
import { REQUEST_TOKEN_BUDGET } from '../src/limits.js';
import { createTokenizer, loadVocabulary, type Tokenizer } from '../src/tokenizer/index.js';
import { sharedEngine } from './server/helpers.js';

/** Longest vocabulary piece, in code points (16): no token covers more of the text. */
const MAX_PIECE = 16;
/** NFKC composes at most three code points into one (Hangul jamo L+V+T). */
const NFKC_SHRINK = 3;

let tokenizer: Tokenizer;
let merging: Tokenizer;
beforeAll(async () => {
  const vocabulary = await loadVocabulary();
  tokenizer = engineTokenizer(vocabulary);
  merging = createTokenizer(vocabulary);
});

const count = (text: string) => tokenizer.encode(flattenWhitespace(text)).length;
const nonSpaceCodePoints = (text: string) => [...text].filter((c) => !/\s/u.test(c)).length;

describe('token counts for any script', () => {
  it('grow at least linearly with the non-whitespace length of any Unicode string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300, size: 'max' }), fc.string({ unit: 'grapheme', maxLength: 300, size: 'max' })), (text) => {
        expect(count(text) * MAX_PIECE * NFKC_SHRINK).toBeGreaterThanOrEqual(nonSpaceCodePoints(text));
      }),
      { numRuns: 2_000, seed: 19 },
    );
  });

  it('count one token per CJK character, where the reference tokenizer merges a run into one', () => {
    const text = '包裹没有到达我要退款';
    expect(merging.encode(text)).toHaveLength(2); // "▁" and one unknown
    expect(tokenizer.encode(text)).toHaveLength(1 + [...text].length);
    // Texts the vocabulary covers give the reference's ids unchanged.
    const english = 'The parcel arrived two weeks late, and the box was crushed.';
    expect(tokenizer.encode(english)).toEqual(merging.encode(english));
  });

  it('refuse a 330,000-character CJK state with the 64k budget (422 too_many_tokens)', async () => {
    const engine = await sharedEngine();
    const state = '包裹没有到达我要退款今天天气很好'.repeat(330_000 / 15);
    expect(engine.countTokens(state)).toBeGreaterThan(REQUEST_TOKEN_BUDGET);
    const error = await engine.evaluate(state, { q: { type: 'noul', instructions: 'Is this about a refund?' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).detail[0]).toMatchObject({ type: 'too_many_tokens', loc: ['body'] });
  });

  it('give different answers to different CJK texts', async () => {
    const engine = await sharedEngine();
    const q = { q: { type: 'choice', instructions: 'Which team?', criteria: { shipping: null, billing: null } } } as const;
    const a = await engine.evaluate('包裹没有到达，我要退款。', q);
    const b = await engine.evaluate('今天天气很好', q);
    expect(a.answers).not.toEqual(b.answers);
    expect(a.usage.input_tokens).toBeGreaterThan(b.usage.input_tokens);
  });
});
