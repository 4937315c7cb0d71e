import { describe, expect, it } from 'vitest';
import { tokenBudgetErrors, validateRequest } from '../src/validation/index.js';
import { MAX_NESTING_DEPTH, QUESTION_TOKEN_BUDGET, REQUEST_TOKEN_BUDGET } from '../src/limits.js';
import { base, errorsOf, only, summary, nest } from './validation-helpers.js';

describe('nesting depth', () => {
  it(`accepts ${MAX_NESTING_DEPTH} levels in every content position`, () => {
    const deep = nest(MAX_NESTING_DEPTH);
    const body = base({
      state: deep,
      questions: {
        n: { type: 'noul', instructions: deep, criteria: { true: deep } },
        c: { type: 'choice', criteria: { a: deep } },
        s: { type: 'score', criteria: [deep] },
      },
    });
    expect(validateRequest(body).ok).toBe(true);
  });

  it('reports one error at the first container past the limit', () => {
    const e = only(base({ state: { a: nest(MAX_NESTING_DEPTH + 50) } }));
    expect(e.type).toBe('too_deep');
    expect(e.msg).toContain(String(MAX_NESTING_DEPTH));
    expect(e.ctx).toEqual({ max_depth: MAX_NESTING_DEPTH });
    expect(e.loc).toEqual(['body', 'state', 'a', ...Array<number>(MAX_NESTING_DEPTH - 1).fill(0)]);
  });

  it('survives nesting far beyond the call-stack limit, and its errors serialise', () => {
    const deep = nest(200_000);
    const r = validateRequest({ state: deep, questions: { q: { type: 'score', criteria: [deep] } } });
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors;
    expect(errors.map((e) => e.type)).toEqual(['too_deep', 'too_deep', 'missing']);
    expect(() => JSON.stringify(errors)).not.toThrow();
  });

  it('reports cycles instead of looping', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    cyclic.again = [cyclic];
    const errors = errorsOf(base({ state: cyclic }));
    expect(errors.map((e) => [e.loc, e.type])).toEqual([
      [['body', 'state', 'self'], 'recursion_loop'],
      [['body', 'state', 'again', 0], 'recursion_loop'],
    ]);
    expect(() => JSON.stringify(errors)).not.toThrow();
  });

  it('handles heavily shared sub-values in linear time', () => {
    let dag: unknown = 'leaf';
    for (let i = 0; i < 60; i++) dag = { l: dag, r: dag };
    const r = validateRequest(base({ state: dag }));
    expect(r.ok).toBe(true);
  });

  it('accepts a rubric shared by two questions', () => {
    const levels = ['bad', 'ok', 'good'];
    const r = validateRequest(base({ questions: { a: { type: 'score', criteria: levels }, b: { type: 'score', criteria: levels } } }));
    expect(r.ok && r.request.questions.b).toEqual({ type: 'score', criteria: levels });
  });
});

describe('unicode', () => {
  it('rejects lone surrogates in values and keys anywhere', () => {
    const body = {
      state: { 'k\uDC00': 'ok', v: 'bad\uD800' },
      model: 'm\uD800',
      questions: {
        'id\uD800': { type: 'choice', instructions: '\uDFFF', criteria: { 'o\uD801': null } },
      },
    };
    expect(summary(body)).toEqual([
      [['body', 'state', 'k\uDC00'], 'string_unicode'],
      [['body', 'state', 'v'], 'string_unicode'],
      [['body', 'model'], 'string_unicode'],
      [['body', 'questions', 'id\uD800'], 'string_unicode'],
      [['body', 'questions', 'id\uD800', 'choice', 'instructions'], 'string_unicode'],
      [['body', 'questions', 'id\uD800', 'choice', 'criteria', 'o\uD801'], 'string_unicode'],
    ]);
    expect(errorsOf(body)[1]!.msg).toBe('Input should be a valid string, unable to parse raw data as a unicode string');
  });

  it('accepts surrogate pairs and CJK text', () => {
    expect(validateRequest(base({ state: '雨が降っていますか 😀', questions: { '😀': { type: 'noul' } } })).ok).toBe(true);
  });
});

describe('every problem at once, in document order', () => {
  it('collects errors from all fields and questions', () => {
    const body = {
      document: 'old',
      model: 3,
      questions: {
        a: { type: 'choice' },
        b: { type: 'score', criteria: [null], extra: 1 },
        c: 7,
      },
    };
    expect(summary(body)).toEqual([
      [['body', 'document'], 'extra_forbidden'],
      [['body', 'model'], 'string_type'],
      [['body', 'questions', 'a', 'choice', 'criteria'], 'missing'],
      [['body', 'questions', 'b', 'score', 'criteria', 0], 'content_type'],
      [['body', 'questions', 'b', 'score', 'extra'], 'extra_forbidden'],
      [['body', 'questions', 'c'], 'model_attributes_type'],
      [['body', 'state'], 'missing'],
    ]);
  });
});

describe('returned copy', () => {
  it('keeps __proto__ and constructor as own data keys, from JSON.parse', () => {
    const text =
      '{"state":{"__proto__":{"polluted":true},"constructor":"c"},"model":"m","questions":{"__proto__":{"type":"choice","criteria":{"__proto__":null,"constructor":"x"}},"constructor":{"type":"noul"}}}';
    const input = JSON.parse(text) as Record<string, unknown>;
    const r = validateRequest(input);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const { questions, state } = r.request;
    expect(Object.keys(questions)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(questions)).toBe(Object.prototype);
    const q = Object.getOwnPropertyDescriptor(questions, '__proto__')?.value as { criteria: Record<string, unknown> };
    expect(q).toMatchObject({ type: 'choice' });
    expect(Object.keys(q.criteria)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(q.criteria, '__proto__')?.value).toBeNull();
    expect(Object.getPrototypeOf(q.criteria)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
    expect(Object.keys(state)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(r.request)).toBe(text);
  });

  it('preserves the key order of questions and options', () => {
    const r = validateRequest(base({ questions: { z: { type: 'choice', criteria: { z: null, a: null, m: null } }, a: { type: 'noul' } } }));
    expect(r.ok && Object.keys(r.request.questions)).toEqual(['z', 'a']);
    expect(r.ok && Object.keys((r.request.questions.z as { criteria: object }).criteria)).toEqual(['z', 'a', 'm']);
  });

  it('shares nothing with the input', () => {
    const input = { state: { list: [1, 2] }, model: 'm', questions: { q: { type: 'score', criteria: [{ d: 'x' }] } } };
    const r = validateRequest(input);
    if (!r.ok) throw new Error('expected ok');
    input.state.list.push(3);
    input.questions.q.criteria[0]!.d = 'changed';
    expect(r.request.state).toEqual({ list: [1, 2] });
    expect(r.request.questions.q).toEqual({ type: 'score', criteria: [{ d: 'x' }] });
  });

  it('accepts null-prototype objects', () => {
    const q = Object.assign(Object.create(null) as object, { type: 'noul' });
    const r = validateRequest(Object.assign(Object.create(null) as object, { state: 's', model: 'm', questions: { q } }));
    expect(r.ok).toBe(true);
  });

  it('never runs getters', () => {
    let called = false;
    const state = {};
    Object.defineProperty(state, 'g', { enumerable: true, get: () => ((called = true), 'x') });
    expect(summary(base({ state }))).toEqual([[['body', 'state', 'g'], 'json_type']]);
    expect(called).toBe(false);
  });
});

describe('tokenBudgetErrors', () => {
  it('is empty within both budgets, limits included', () => {
    expect(tokenBudgetErrors(0, { a: 1 })).toEqual([]);
    expect(tokenBudgetErrors(QUESTION_TOKEN_BUDGET - 10, { a: 10, b: 10 })).toEqual([]);
    expect(tokenBudgetErrors(0, { a: QUESTION_TOKEN_BUDGET, b: QUESTION_TOKEN_BUDGET })).toEqual([]);
  });

  it('reports a request over the total budget at ["body"]', () => {
    const errors = tokenBudgetErrors(1000, { a: 30_000, b: 30_000, c: 5_000 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      loc: ['body'],
      type: 'too_many_tokens',
      ctx: { limit: REQUEST_TOKEN_BUDGET, actual: 66_000 },
    });
    expect(errors[0]!.msg).toContain('66000');
    expect(errors[0]!.msg).toContain(String(REQUEST_TOKEN_BUDGET));
  });

  it('reports each question over the per-question budget', () => {
    expect(tokenBudgetErrors(20_000, { a: 12_768, b: 12_769 }).map((e) => [e.loc, e.type, e.ctx])).toEqual([
      [['body', 'questions', 'b'], 'too_many_tokens', { limit: QUESTION_TOKEN_BUDGET, actual: 32_769 }],
    ]);
    expect(tokenBudgetErrors(20_000, { a: 12_769, b: 40_000 }).map((e) => e.loc)).toEqual([
      ['body'],
      ['body', 'questions', 'a'],
      ['body', 'questions', 'b'],
    ]);
  });

  it('handles a __proto__ question id passed as an own key', () => {
    const counts = JSON.parse('{"__proto__": 40000}') as Record<string, number>;
    expect(tokenBudgetErrors(0, counts).map((e) => e.loc)).toEqual([['body', 'questions', '__proto__']]);
  });
});
