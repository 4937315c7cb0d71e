import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flattenWhitespace, renderState } from '../src/canonical/index.js';
import { fieldSpan, pairSimilarity, referencedPair, spanCosine } from '../src/heads/fields.js';
import { HIDDEN } from '../src/heads/late.js';
import { createTokenizer, loadVocabulary } from '../src/tokenizer/index.js';
import type { JsonObject, Question } from '../src/types.js';

const tokenizer = createTokenizer(await loadVocabulary());
const tokenize = (text: string) => tokenizer.encode(flattenWhitespace(text));
const noul = (instructions: Question['instructions']): Question => ({ type: 'noul', instructions });

describe('referencedPair', () => {
  const state = { draft: 'a', final: 'b', owner: 'c' };

  it('takes the first two distinct state fields named in backticks', () => {
    expect(referencedPair(noul('Does `final` repeat `draft`?'), state)).toEqual(['final', 'draft']);
    expect(referencedPair(noul('Is `draft` like `draft`, or `owner` like `final`?'), state)).toEqual(['draft', 'owner']);
  });

  it('ignores names that are not top-level state fields, and states that are not objects', () => {
    expect(referencedPair(noul('Does `final` match `budget`?'), state)).toBeNull();
    expect(referencedPair(noul('Is `draft` ok?'), state)).toBeNull();
    expect(referencedPair(noul('Does `a` match `b`?'), 'a b')).toBeNull();
    expect(referencedPair(noul('Does `a` match `b`?'), ['a', 'b'])).toBeNull();
  });

  it('leaves names of structured instructions to the instructions', () => {
    const structured = noul({ question: 'Does `draft` follow `final`?', final: 'the rule' });
    expect(referencedPair(structured, state)).toBeNull();
    expect(referencedPair(noul({ question: 'Does `draft` match `owner`?' }), state)).toEqual(['draft', 'owner']);
  });
});

describe('fieldSpan', () => {
  const word = fc.constantFrom('river', 'invoice', 'late', 'blue', 'the', 'shipment', 'arrived', 'on', 'Monday', '42', 'refund', 'quickly');
  const value = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
  const key = fc.constantFrom('note', 'text_1', 'text_2', 'summary', 'id', 'body', 'reply');

  it('locates exactly the tokens of a string field value', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1 }), (fields) => {
        const state = fields as JsonObject;
        const ids = tokenize(renderState(state));
        for (const [name, v] of Object.entries(fields)) {
          const span = fieldSpan(state, ids, tokenize, name);
          expect(span).not.toBeNull();
          expect(ids.slice(span!.start, span!.end)).toEqual(tokenize(v));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('gives no span where the value is not one labelled block', () => {
    const state = { meta: { a: 1 }, text: 'hello there' } as JsonObject;
    const ids = tokenize(renderState(state));
    expect(fieldSpan(state, ids, tokenize, 'meta')).toBeNull();
    expect(fieldSpan(state, ids, tokenize, 'missing')).toBeNull();
    expect(fieldSpan(state, ids, tokenize, 'text')).not.toBeNull();
    // Ids of another text: the check against the state's own tokens fails.
    expect(fieldSpan(state, tokenize('something else entirely'), tokenize, 'text')).toBeNull();
  });
});

describe('spanCosine and pairSimilarity', () => {
  it('is 1 for equal spans and 0 for orthogonal ones', () => {
    const tokens = new Float32Array(3 * HIDDEN);
    tokens[0] = 1;
    tokens[HIDDEN] = 2;
    tokens[2 * HIDDEN + 1] = 1;
    expect(spanCosine(tokens, { start: 0, end: 1 }, { start: 1, end: 2 })).toBeCloseTo(1, 12);
    expect(spanCosine(tokens, { start: 0, end: 2 }, { start: 2, end: 3 })).toBe(0);
  });

  it('reads the cosine of the named fields from the state token states, null without a pair', () => {
    const state = { left: 'alpha beta', right: 'gamma' } as JsonObject;
    const ids = tokenize(renderState(state));
    const tokens = new Float32Array(ids.length * HIDDEN);
    const left = fieldSpan(state, ids, tokenize, 'left')!;
    const right = fieldSpan(state, ids, tokenize, 'right')!;
    for (let t = left.start; t < left.end; t++) tokens[t * HIDDEN] = 1;
    for (let t = right.start; t < right.end; t++) tokens[t * HIDDEN] = 1;
    expect(pairSimilarity(noul('Is `left` like `right`?'), state, ids, tokens, tokenize)).toBeCloseTo(1, 12);
    for (let t = right.start; t < right.end; t++) [tokens[t * HIDDEN], tokens[t * HIDDEN + 1]] = [0, 1];
    expect(pairSimilarity(noul('Is `left` like `right`?'), state, ids, tokens, tokenize)).toBe(0);
    expect(pairSimilarity(noul('Is `left` long?'), state, ids, tokens, tokenize)).toBeNull();
    // No token states (a pooled-only encoding): no pair.
    expect(pairSimilarity(noul('Is `left` like `right`?'), state, ids, new Float32Array(0), tokenize)).toBeNull();
  });
});
