/**
 * fast-check arbitraries for requests, shared by the property tests of every stage.
 * @module
 */
import fc from 'fast-check';
import type { ChoiceQuestion, Content, JsonValue, NoulQuestion, Question, ScoreQuestion, State, SystemOneRequest } from '../src/types.js';
import { MAX_CHOICE_OPTIONS, MAX_SCORE_LEVELS } from '../src/limits.js';

/**
 * Keys that break naive object handling (prototype pollution, inherited lookups). Mixed into
 * every generated key so each stage is exercised against them.
 */
export const TRICKY_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '0', '', 'true'] as const;

/** Any well-formed string, with the tricky keys over-represented. */
export const keyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(...TRICKY_KEYS) },
);

/** A JSON value with well-formed strings and tricky keys, nested a few levels. */
export const jsonArb: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keyArb, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

/** Content: a string, an object or an array (never null at the top). */
export const contentArb: fc.Arbitrary<Content> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.dictionary(keyArb, jsonArb, { maxKeys: 4, noNullPrototype: true }),
  fc.array(jsonArb, { maxLength: 4 }),
);

/** The state: any content. */
export const stateArb: fc.Arbitrary<State> = contentArb;

/**
 * Instructions in the forms callers send: plain text, or a structured object whose question
 * text names data fields in backticks, or null.
 */
export const instructionsArb: fc.Arbitrary<Content | null> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc
    .record({ field: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }), data: jsonArb })
    .map(({ field, data }) => {
      const out: Record<string, JsonValue> = {};
      Object.defineProperty(out, 'question', { value: `Does \`${field}\` apply?`, enumerable: true, writable: true, configurable: true });
      Object.defineProperty(out, field, { value: data, enumerable: true, writable: true, configurable: true });
      return out;
    }),
  contentArb,
  fc.constant(null),
);

const optionalContent = fc.option(contentArb, { nil: null });

/** A noul question with every optional field sometimes absent. */
export const noulArb: fc.Arbitrary<NoulQuestion> = fc.record(
  {
    type: fc.constant('noul' as const),
    instructions: instructionsArb,
    criteria: fc.option(fc.record({ true: optionalContent, false: optionalContent }, { requiredKeys: [] }), { nil: null }),
  },
  { requiredKeys: ['type'] },
);

/** A choice question with 1 to 255 options; the upper end is drawn on purpose. */
export const choiceArb: fc.Arbitrary<ChoiceQuestion> = fc.record(
  {
    type: fc.constant('choice' as const),
    instructions: instructionsArb,
    criteria: fc.oneof(
      fc.dictionary(keyArb, optionalContent, { minKeys: 1, maxKeys: 6, noNullPrototype: true }),
      fc
        .uniqueArray(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }), {
          minLength: MAX_CHOICE_OPTIONS - 5,
          maxLength: MAX_CHOICE_OPTIONS,
        })
        .map((names) => {
          const out: Record<string, Content | null> = {};
          names.forEach((n, i) => Object.defineProperty(out, n, { value: i % 3 === 0 ? null : `option ${n}`, enumerable: true, writable: true, configurable: true }));
          return out;
        }),
    ),
  },
  { requiredKeys: ['type', 'criteria'] },
);

/** A score question with 1 to 10 levels. */
export const scoreArb: fc.Arbitrary<ScoreQuestion> = fc.record(
  {
    type: fc.constant('score' as const),
    instructions: instructionsArb,
    criteria: fc.array(contentArb, { minLength: 1, maxLength: MAX_SCORE_LEVELS }),
  },
  { requiredKeys: ['type', 'criteria'] },
);

/** Any valid question. */
export const questionArb: fc.Arbitrary<Question> = fc.oneof(noulArb, choiceArb, scoreArb);

/** A valid request: any state, a model name, 1 to 8 questions of all three types. */
export const validRequestArb: fc.Arbitrary<SystemOneRequest> = fc.record({
  state: stateArb,
  model: fc.constantFrom('evalmodel-latest', 'evalmodel-preview', 'evalmodel-1.14.0', 'no-such-model'),
  questions: fc.dictionary(keyArb, questionArb, { minKeys: 1, maxKeys: 8, noNullPrototype: true }),
});
