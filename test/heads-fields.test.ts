import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flattenWhitespace, renderState } from '../src/canonical/index.js';
import { fieldSpans, pairSimilarities, referencedPair, spanCosine } from '../src/heads/fields.js';
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

describe('fieldSpans', () => {
  const word = fc.constantFrom('river', 'invoice', 'late', 'blue', 'the', 'shipment', 'arrived', 'on', 'Monday', '42', 'refund', 'quickly');
  const line = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
  const value = fc.oneof(line, fc.array(line, { minLength: 2, maxLength: 3 }).map((l) => l.join('\n')), fc.integer({ min: -5000, max: 99999 }));
  const key = fc.constantFrom('note', 'text_1', 'text_2', 'summary', 'id', 'body', 'reply');

  it('locates exactly the tokens of each field value (strings, multi-line strings, numbers)', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1 }), (fields) => {
        const state = fields as JsonObject;
        const ids = tokenize(renderState(state));
        const spans = fieldSpans(state, ids, tokenize);
        expect([...spans.keys()].sort()).toEqual(Object.keys(fields).sort());
        const entries = Object.entries(fields);
        for (const [i, [name, v]] of entries.entries()) {
          const span = spans.get(name)!;
          // The value as rendered under its label (numbers as written, lines folded), tokenized
          // in the state's own context: everything before it, then its label. The reference
          // tokenizer breaks ties by context ("14777" alone is [919, 611, 4287], after a space
          // [919, 4287, 611], and a number after another record's number differs again), so a
          // block tokenized on its own is not a reference.
          const before = i === 0 ? '' : `${renderState(Object.fromEntries(entries.slice(0, i)) as JsonObject)}\n`;
          const throughValue = tokenize(renderState(Object.fromEntries(entries.slice(0, i + 1)) as JsonObject));
          const throughLabel = tokenize(`${before}${name}:`);
          expect(ids.slice(0, span.end)).toEqual(throughValue);
          expect(ids.slice(span.start, span.end)).toEqual(throughValue.slice(throughLabel.length));
          if (typeof v === 'string' && !v.includes('\n')) expect(ids.slice(span.start, span.end)).toEqual(tokenize(v));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('gives no span where the value is not one labelled block', () => {
    const state = { meta: { a: 1 }, text: 'hello there' } as JsonObject;
    const ids = tokenize(renderState(state));
    const spans = fieldSpans(state, ids, tokenize);
    expect(spans.has('meta')).toBe(false);
    expect(spans.has('missing')).toBe(false);
    expect(spans.get('text')).toEqual({ start: ids.length - tokenize('hello there').length, end: ids.length });
    // Ids of another text: the check against the state's own tokens fails.
    expect(fieldSpans(state, tokenize('something else entirely'), tokenize).size).toBe(0);
    expect(fieldSpans('a string state', tokenize('a string state'), tokenize).size).toBe(0);
  });
});

describe('spanCosine and pairSimilarities', () => {
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
    const spans = fieldSpans(state, ids, tokenize);
    const left = spans.get('left')!;
    const right = spans.get('right')!;
    for (let t = left.start; t < left.end; t++) tokens[t * HIDDEN] = 1;
    for (let t = right.start; t < right.end; t++) tokens[t * HIDDEN] = 1;
    const pairSimilarity = (q: Question, st: JsonObject, tokenStates: Float32Array) => pairSimilarities([q], st, ids, tokenStates, tokenize)[0];
    expect(pairSimilarity(noul('Is `left` like `right`?'), state, tokens)).toBeCloseTo(1, 12);
    for (let t = right.start; t < right.end; t++) [tokens[t * HIDDEN], tokens[t * HIDDEN + 1]] = [0, 1];
    expect(pairSimilarity(noul('Is `left` like `right`?'), state, tokens)).toBe(0);
    expect(pairSimilarity(noul('Is `left` long?'), state, tokens)).toBeNull();
    // One call answers several questions, in order.
    expect(pairSimilarities([noul('Is `left` long?'), noul('Is `right` like `left`?')], state, ids, tokens, tokenize)).toEqual([null, 0]);
    // No token states (a pooled-only encoding): no pair.
    expect(pairSimilarity(noul('Is `left` like `right`?'), state, new Float32Array(0))).toBeNull();
  });
});
