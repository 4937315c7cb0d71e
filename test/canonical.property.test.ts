import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { renderQuestion, renderState, sanitizeText } from '../src/canonical/index.js';
import type { Content, JsonObject, JsonValue, Question, State } from '../src/types.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const content: fc.Arbitrary<Content> = fc.oneof(
  text,
  fc.dictionary(text, json, { maxKeys: 5 }) as fc.Arbitrary<JsonObject>,
  fc.array(json, { maxLength: 5 }),
);
const optionalContent = fc.option(content, { nil: null });
const referencingText = fc
  .tuple(text, fc.constantFrom('policy', 'rule', 'missing', 'limits.amount'), text)
  .map(([a, name, b]) => `${a}\`${name}\`${b}`);
const structured: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.record({ question: referencingText, policy: text, limits: fc.record({ amount: fc.integer() }) }),
  fc.record({ rule: referencingText, text: fc.option(text, { nil: null }), data: json }),
  fc.dictionary(text, json, { maxKeys: 6 }) as fc.Arbitrary<JsonObject>,
);
const instructions = fc.option(fc.oneof(content, structured), { nil: undefined }).chain((value) =>
  fc.constantFrom(value, null),
);

const question: fc.Arbitrary<Question> = fc.oneof(
  fc.record(
    {
      type: fc.constant('noul' as const),
      instructions,
      criteria: fc.option(
        fc.record({ true: optionalContent, false: optionalContent }, { requiredKeys: [] }),
        { nil: null },
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('choice' as const),
      instructions,
      criteria: fc.dictionary(text, optionalContent, { minKeys: 1, maxKeys: 8 }),
    },
    { requiredKeys: ['type', 'criteria'] },
  ),
  fc.record(
    {
      type: fc.constant('score' as const),
      instructions,
      criteria: fc.array(content, { minLength: 1, maxLength: 10 }),
    },
    { requiredKeys: ['type', 'criteria'] },
  ),
);
const state: fc.Arbitrary<State> = fc.oneof(
  text,
  fc.dictionary(text, json, { maxKeys: 8 }) as fc.Arbitrary<JsonObject>,
  fc.array(json, { maxLength: 8 }),
);

function criteriaCount(q: Question): number {
  switch (q.type) {
    case 'noul':
      return 2;
    case 'choice':
      return Object.keys(q.criteria).length;
    case 'score':
      return q.criteria.length;
  }
}

/** Pieces the canonical form must never contain, whatever the input. */
const FORBIDDEN = /<s>|<\/s>|extra_token_id_\d|\u2581|[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/;

describe('properties', () => {
  it('renders a question deterministically, and a deep copy the same way', () => {
    fc.assert(
      fc.property(question, (q) => {
        const first = renderQuestion(q);
        expect(renderQuestion(q)).toEqual(first);
        expect(renderQuestion(structuredClone(q))).toEqual(first);
      }),
      { numRuns: 500 },
    );
  });

  it('renders a state deterministically', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(renderState(structuredClone(s))).toBe(renderState(s));
      }),
      { numRuns: 500 },
    );
  });

  it('gives one key and one outcome per criterion, keys in answer order', () => {
    fc.assert(
      fc.property(question, (q) => {
        const rendered = renderQuestion(q);
        expect(rendered.type).toBe(q.type);
        expect(rendered.keys).toHaveLength(criteriaCount(q));
        expect(rendered.outcomes).toHaveLength(rendered.keys.length);
        if (q.type === 'noul') expect(rendered.keys).toEqual(['true', 'false']);
        if (q.type === 'choice') expect(rendered.keys).toEqual(Object.keys(q.criteria));
        if (q.type === 'score') expect(rendered.keys).toEqual(q.criteria.map((_, i) => String(i)));
        for (const outcome of rendered.outcomes) expect(outcome.startsWith(rendered.instructions)).toBe(true);
        expect(rendered.text.startsWith(rendered.instructions)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never emits reserved pieces or control characters', () => {
    fc.assert(
      fc.property(state, question, (s, q) => {
        const rendered = renderQuestion(q);
        for (const out of [renderState(s), rendered.text, rendered.instructions, ...rendered.outcomes]) {
          expect(out).not.toMatch(FORBIDDEN);
          expect(out).not.toContain('\r');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('sanitising is a fixed point', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const once = sanitizeText(s);
        expect(sanitizeText(once)).toBe(once);
        expect(once).not.toMatch(FORBIDDEN);
        expect(once).not.toMatch(/ {2}/);
      }),
      { numRuns: 2000 },
    );
  });

  it('sanitising catches reserved pieces hidden among noise', () => {
    const noisy = fc
      .array(fc.constantFrom('<', 's', '>', '/', ' ', '\u2581', '\u0000', 'extra_token_id_', '1', '\uff1c', '\uff53', '\uff1e'), {
        maxLength: 30,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(noisy, (s) => {
        const once = sanitizeText(s);
        expect(once).not.toMatch(FORBIDDEN);
        expect(sanitizeText(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });
});
