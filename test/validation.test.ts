import { describe, expect, it } from 'vitest';
import { validateRequest } from '../src/validation/index.js';
import { MAX_CHOICE_OPTIONS, MAX_SCORE_LEVELS } from '../src/limits.js';
import { Q, base, errorsOf, only, summary } from './validation-helpers.js';

describe('body', () => {
  it('accepts a minimal request', () => {
    expect(validateRequest(base())).toEqual({ ok: true, request: base() });
  });

  it.each([null, 1, 'x', true, [], [base()], undefined, new Date(), new Map()])('rejects a non-object body %#', (body) => {
    const e = only(body);
    expect(e).toMatchObject({
      loc: ['body'],
      type: 'model_attributes_type',
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: body,
    });
  });

  it('reports each missing field with the body as input, in field order', () => {
    const errors = errorsOf({});
    expect(errors.map((e) => [e.loc, e.type, e.msg])).toEqual([
      [['body', 'state'], 'missing', 'Field required'],
      [['body', 'model'], 'missing', 'Field required'],
      [['body', 'questions'], 'missing', 'Field required'],
    ]);
    expect(errors[0]!.input).toEqual({});
  });

  it('treats an own key holding undefined as absent', () => {
    expect(summary(base({ state: undefined }))).toEqual([[['body', 'state'], 'missing']]);
  });

  it('forbids unknown top-level keys', () => {
    const e = only(base({ extra: 1 }));
    expect(e).toMatchObject({ loc: ['body', 'extra'], type: 'extra_forbidden', msg: 'Extra inputs are not permitted', input: 1 });
    expect(e.ctx).toBeUndefined();
  });

  it('fails the obsolete `document` with a hint, and still reports the missing `state`', () => {
    const body = { document: 'text', model: 'm', questions: Q };
    expect(summary(body)).toEqual([
      [['body', 'document'], 'extra_forbidden'],
      [['body', 'state'], 'missing'],
    ]);
    expect(errorsOf(body)[0]!.ctx).toEqual({ hint: '`document` was renamed `state` in version 1' });
  });

  it('hints that `prompts` became `questions`', () => {
    const e = errorsOf({ state: 's', model: 'm', prompts: [{ key: 'a', type: 'noul' }] })[0]!;
    expect(e.loc).toEqual(['body', 'prompts']);
    expect(String(e.ctx?.hint)).toContain('`questions`');
  });

  it('does not find inherited properties when looking up hints', () => {
    const body = JSON.parse('{"state":"s","model":"m","questions":{"a":{"type":"noul"}},"constructor":1,"toString":2}');
    const errors = errorsOf(body);
    expect(errors.map((e) => [e.loc, e.ctx])).toEqual([
      [['body', 'constructor'], undefined],
      [['body', 'toString'], undefined],
    ]);
  });
});

describe('state', () => {
  it.each(['', 'text', {}, { a: [1, true, null, 2.5] }, [], ['a', { b: null }]])('accepts %j', (state) => {
    expect(validateRequest(base({ state })).ok).toBe(true);
  });

  it.each([null, 0, 1.5, true, false])('rejects %j with state_type', (state) => {
    expect(only(base({ state }))).toMatchObject({
      loc: ['body', 'state'],
      type: 'state_type',
      msg: 'Input should be a string, an object or an array',
      input: state,
    });
  });

  it('rejects values JSON cannot carry inside the state', () => {
    expect(summary(base({ state: { a: NaN, b: [Infinity], c: () => 1, d: 1n, e: Symbol('s') } }))).toEqual([
      [['body', 'state', 'a'], 'finite_number'],
      [['body', 'state', 'b', 0], 'finite_number'],
      [['body', 'state', 'c'], 'json_type'],
      [['body', 'state', 'd'], 'json_type'],
      [['body', 'state', 'e'], 'json_type'],
    ]);
  });

  it('rejects class instances and sparse arrays inside the state', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(summary(base({ state: { when: new Date(0), holes: [1, , 3] } }))).toEqual([
      [['body', 'state', 'when'], 'json_type'],
      [['body', 'state', 'holes'], 'json_type'],
    ]);
  });
});

describe('model', () => {
  it.each([1, null, {}, ['m']])('rejects %j with string_type', (model) => {
    expect(only(base({ model }))).toMatchObject({ loc: ['body', 'model'], type: 'string_type', msg: 'Input should be a valid string' });
  });

  it('does not check that the model exists', () => {
    expect(validateRequest(base({ model: 'no-such-model' })).ok).toBe(true);
  });
});

describe('questions map', () => {
  it.each([[], 'x', 1, null])('rejects %j with dict_type', (questions) => {
    expect(only(base({ questions }))).toMatchObject({ loc: ['body', 'questions'], type: 'dict_type' });
  });

  it('rejects an empty map with too_short', () => {
    expect(only(base({ questions: {} }))).toEqual({
      loc: ['body', 'questions'],
      type: 'too_short',
      msg: 'Dictionary should have at least 1 item after validation, not 0',
      input: {},
      ctx: { field_type: 'Dictionary', min_length: 1, actual_length: 0 },
    });
  });

  it('rejects a question that is not an object', () => {
    expect(only(base({ questions: { q: 'noul' } }))).toMatchObject({
      loc: ['body', 'questions', 'q'],
      type: 'model_attributes_type',
      input: 'noul',
    });
  });

  it('rejects a question without type', () => {
    expect(only(base({ questions: { q: { instructions: 'x' } } }))).toEqual({
      loc: ['body', 'questions', 'q'],
      type: 'union_tag_not_found',
      msg: "Unable to extract tag using discriminator 'type'",
      input: { instructions: 'x' },
      ctx: { discriminator: "'type'" },
    });
  });

  it('rejects an unknown type', () => {
    expect(only(base({ questions: { q: { type: 'bool' } } }))).toEqual({
      loc: ['body', 'questions', 'q'],
      type: 'union_tag_invalid',
      msg: "Input tag 'bool' found using 'type' does not match any of the expected tags: 'noul', 'choice', 'score'",
      input: { type: 'bool' },
      ctx: { discriminator: "'type'", tag: 'bool', expected_tags: "'noul', 'choice', 'score'" },
    });
  });

  it.each([
    [5, '5'],
    [null, 'null'],
    [{}, '{...}'],
    [Object.create(null), '{...}'],
    [['noul'], '[...]'],
  ])('names a non-string tag %j safely', (tag, shown) => {
    expect(only(base({ questions: { q: { type: tag } } })).ctx).toMatchObject({ tag: shown });
  });

  it('forbids extra question keys, with hints for preview fields', () => {
    const errors = errorsOf(
      base({ questions: { q: { type: 'choice', criteria: { a: null }, options: [], levels: [], key: 'q', other: 1 } } }),
    );
    expect(errors.map((e) => [e.loc, e.type, e.ctx === undefined])).toEqual([
      [['body', 'questions', 'q', 'choice', 'options'], 'extra_forbidden', false],
      [['body', 'questions', 'q', 'choice', 'levels'], 'extra_forbidden', false],
      [['body', 'questions', 'q', 'choice', 'key'], 'extra_forbidden', false],
      [['body', 'questions', 'q', 'choice', 'other'], 'extra_forbidden', true],
    ]);
  });
});

describe('instructions', () => {
  it.each(['Is it?', { question: 'Is `x` even?', x: 4 }, ['a', 1], null])('accepts %j', (instructions) => {
    expect(validateRequest(base({ questions: { q: { type: 'noul', instructions } } })).ok).toBe(true);
  });

  it('may be absent', () => {
    expect(validateRequest(base({ questions: { q: { type: 'score', criteria: ['low', 'high'] } } })).ok).toBe(true);
  });

  it.each([1, true])('rejects %j with content_type under the type tag', (instructions) => {
    expect(only(base({ questions: { q: { type: 'score', instructions, criteria: ['a'] } } }))).toMatchObject({
      loc: ['body', 'questions', 'q', 'score', 'instructions'],
      type: 'content_type',
      msg: 'Input should be a string, an object or an array',
    });
  });
});

describe('noul criteria', () => {
  it.each([null, {}, { true: 'yes' }, { false: null }, { true: { a: 1 }, false: ['no'] }])('accepts %j', (criteria) => {
    expect(validateRequest(base({ questions: { q: { type: 'noul', criteria } } })).ok).toBe(true);
  });

  it('rejects other keys and bad values', () => {
    expect(summary(base({ questions: { q: { type: 'noul', criteria: { true: 1, maybe: 'x' } } } }))).toEqual([
      [['body', 'questions', 'q', 'noul', 'criteria', 'true'], 'content_type'],
      [['body', 'questions', 'q', 'noul', 'criteria', 'maybe'], 'extra_forbidden'],
    ]);
  });

  it('rejects a non-object', () => {
    expect(summary(base({ questions: { q: { type: 'noul', criteria: 'yes' } } }))).toEqual([
      [['body', 'questions', 'q', 'noul', 'criteria'], 'model_attributes_type'],
    ]);
  });
});

describe('choice criteria', () => {
  const choice = (criteria: unknown, more: Record<string, unknown> = {}): Record<string, unknown> =>
    base({ questions: { c: { type: 'choice', instructions: 'Pick', criteria, ...more } } });

  it('is required, with the question as input', () => {
    const e = only(base({ questions: { c: { type: 'choice', instructions: 'Pick' } } }));
    expect(e).toMatchObject({ loc: ['body', 'questions', 'c', 'choice', 'criteria'], type: 'missing', msg: 'Field required' });
    expect(e.input).toEqual({ type: 'choice', instructions: 'Pick' });
  });

  it('accepts null, string, object and array descriptions', () => {
    expect(validateRequest(choice({ a: null, b: 'bee', c: { d: 1 }, e: ['x'] })).ok).toBe(true);
  });

  it.each([[['a', 'b']], ['a'], [null]])('rejects %j with dict_type', (criteria) => {
    expect(only(choice(criteria))).toMatchObject({ loc: ['body', 'questions', 'c', 'choice', 'criteria'], type: 'dict_type' });
  });

  it('needs at least one option', () => {
    expect(only(choice({}))).toMatchObject({
      type: 'too_short',
      msg: 'Dictionary should have at least 1 item after validation, not 0',
      ctx: { field_type: 'Dictionary', min_length: 1, actual_length: 0 },
    });
  });

  it(`accepts ${MAX_CHOICE_OPTIONS} options and rejects ${MAX_CHOICE_OPTIONS + 1}`, () => {
    const options = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`o${i}`, null]));
    expect(validateRequest(choice(options(MAX_CHOICE_OPTIONS))).ok).toBe(true);
    expect(only(choice(options(MAX_CHOICE_OPTIONS + 1)))).toMatchObject({
      loc: ['body', 'questions', 'c', 'choice', 'criteria'],
      type: 'too_long',
      msg: 'Dictionary should have at most 255 items after validation, not 256',
      ctx: { max_length: 255, actual_length: 256 },
    });
  });

  it('reports a bad option at its name', () => {
    expect(summary(choice({ good: 'g', bad: 7, worse: true }))).toEqual([
      [['body', 'questions', 'c', 'choice', 'criteria', 'bad'], 'content_type'],
      [['body', 'questions', 'c', 'choice', 'criteria', 'worse'], 'content_type'],
    ]);
  });
});

describe('score criteria', () => {
  const score = (criteria: unknown): Record<string, unknown> => base({ questions: { s: { type: 'score', criteria } } });
  const at = ['body', 'questions', 's', 'score', 'criteria'];

  it('is required', () => {
    expect(summary(base({ questions: { s: { type: 'score' } } }))).toEqual([[at, 'missing']]);
  });

  it.each(['levels', { 0: 'a' }, null])('rejects %j with list_type', (criteria) => {
    expect(only(score(criteria))).toMatchObject({ loc: at, type: 'list_type', msg: 'Input should be a valid list' });
  });

  it('needs 1 to 10 levels', () => {
    expect(only(score([]))).toMatchObject({
      loc: at,
      type: 'too_short',
      msg: 'List should have at least 1 item after validation, not 0',
      ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
    });
    expect(validateRequest(score(['only'])).ok).toBe(true);
    expect(validateRequest(score(Array.from({ length: MAX_SCORE_LEVELS }, (_, i) => `l${i}`))).ok).toBe(true);
    expect(only(score(Array.from({ length: 11 }, (_, i) => `l${i}`)))).toMatchObject({
      loc: at,
      type: 'too_long',
      msg: 'List should have at most 10 items after validation, not 11',
      ctx: { field_type: 'List', max_length: 10, actual_length: 11 },
    });
  });

  it('rejects null and scalar levels at their index', () => {
    expect(summary(score(['low', null, { d: 1 }, 3]))).toEqual([
      [[...at, 1], 'content_type'],
      [[...at, 3], 'content_type'],
    ]);
  });
});
