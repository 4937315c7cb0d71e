import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateRequest } from '../src/validation/index.js';
import { MAX_NESTING_DEPTH } from '../src/limits.js';
import type { SystemOneRequest, ValidationError } from '../src/types.js';
import { keyArb, validRequestArb } from './arbitraries.js';

type Loc = ValidationError['loc'];
type Obj = Record<string, unknown>;

/** A mutable copy; JSON.parse makes keys such as `__proto__` own data keys, as a server sees them. */
const clone = (value: unknown): Obj => JSON.parse(JSON.stringify(value)) as Obj;
const own = (obj: unknown, key: string): unknown => Object.getOwnPropertyDescriptor(obj as object, key)?.value;
const put = (obj: unknown, key: string, value: unknown): void => {
  Object.defineProperty(obj as object, key, { value, writable: true, enumerable: true, configurable: true });
};
const sameLoc = (a: Loc, b: Loc): boolean => JSON.stringify(a) === JSON.stringify(b);
function nest(levels: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

function checkShape(body: unknown): ValidationError[] {
  const result = validateRequest(body);
  if (result.ok) return [];
  expect(result.errors.length).toBeGreaterThan(0);
  for (const e of result.errors) {
    expect(e.loc[0]).toBe('body');
    expect(typeof e.msg).toBe('string');
    expect(typeof e.type).toBe('string');
    for (const part of e.loc) expect(['string', 'number']).toContain(typeof part);
  }
  return result.errors;
}

const anyValue = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withTypedArray: true,
  withSparseArray: true,
  withUnicodeString: true,
});
const tag = fc.constantFrom('noul', 'choice', 'score', 'other');

describe('validateRequest is total', () => {
  it('never throws on anything, and errors are well-formed', () => {
    fc.assert(fc.property(anyValue, (body) => void checkShape(body)));
  });

  it('never throws on request-shaped values with arbitrary leaves', () => {
    const question = fc.record({ type: fc.oneof(tag, anyValue), instructions: anyValue, criteria: anyValue }, { requiredKeys: [] });
    const body = fc.record(
      { state: anyValue, model: anyValue, questions: fc.oneof(anyValue, fc.dictionary(keyArb, fc.oneof(question, anyValue))) },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(body, (b) => void checkShape(b)));
  });

  it('on JSON bodies, the errors themselves serialise', () => {
    const question = fc.record({ type: fc.oneof(tag, fc.jsonValue()), instructions: fc.jsonValue(), criteria: fc.jsonValue() }, { requiredKeys: [] });
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ state: fc.jsonValue(), model: fc.jsonValue(), questions: fc.dictionary(keyArb, question) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(body, (b) => {
        const errors = checkShape(b);
        expect(() => JSON.stringify(errors)).not.toThrow();
      }),
    );
  });
});

describe('valid requests', () => {
  it('are accepted and returned deep-equal, keys in order, as own data keys', () => {
    fc.assert(
      fc.property(validRequestArb, (request) => {
        const result = validateRequest(request);
        if (!result.ok) expect.fail(JSON.stringify(result.errors.slice(0, 3)));
        expect(result.request).toEqual(request);
        expect(result.request).not.toBe(request);
        expect(Object.keys(result.request.questions)).toEqual(Object.keys(request.questions));
        for (const id of Object.keys(request.questions)) {
          const q = own(request.questions, id) as SystemOneRequest['questions'][string];
          const copy = own(result.request.questions, id);
          expect(copy).toEqual(q);
          if (q.type === 'choice') expect(Object.keys((copy as { criteria: object }).criteria)).toEqual(Object.keys(q.criteria));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('are accepted after a JSON round trip (what a server receives)', () => {
    fc.assert(
      fc.property(validRequestArb, (request) => {
        const text = JSON.stringify(request);
        const result = validateRequest(JSON.parse(text));
        expect(result.ok).toBe(true);
        if (result.ok) expect(JSON.stringify(result.request)).toBe(JSON.stringify(JSON.parse(text)));
      }),
    );
  });
});

/** One defect applied to a valid body, and where it must be reported. */
type Mutation = { name: string; apply: (body: Obj) => void; loc: Loc };

function mutations(request: SystemOneRequest): Mutation[] {
  const out: Mutation[] = [
    { name: 'state null', apply: (b) => put(b, 'state', null), loc: ['body', 'state'] },
    { name: 'state number', apply: (b) => put(b, 'state', 42), loc: ['body', 'state'] },
    { name: 'state too deep', apply: (b) => put(b, 'state', nest(MAX_NESTING_DEPTH + 3)), loc: ['body', 'state', ...Array<number>(MAX_NESTING_DEPTH).fill(0)] },
    { name: 'model number', apply: (b) => put(b, 'model', 42), loc: ['body', 'model'] },
    { name: 'model lone surrogate', apply: (b) => put(b, 'model', 'm\uD800'), loc: ['body', 'model'] },
    { name: 'document', apply: (b) => put(b, 'document', 'old'), loc: ['body', 'document'] },
    { name: 'questions empty', apply: (b) => put(b, 'questions', {}), loc: ['body', 'questions'] },
    { name: 'questions array', apply: (b) => put(b, 'questions', []), loc: ['body', 'questions'] },
  ];
  for (const field of ['state', 'model', 'questions']) {
    out.push({ name: `delete ${field}`, apply: (b) => void delete b[field], loc: ['body', field] });
  }
  for (const id of Object.keys(request.questions)) {
    const q = own(request.questions, id) as SystemOneRequest['questions'][string];
    const at: Loc = ['body', 'questions', id];
    const field: Loc = [...at, q.type];
    const question = (b: Obj): Obj => own(own(b, 'questions'), id) as Obj;
    out.push(
      { name: 'question scalar', apply: (b) => put(own(b, 'questions'), id, 5), loc: at },
      { name: 'no type', apply: (b) => void delete question(b).type, loc: at },
      { name: 'bad type', apply: (b) => put(question(b), 'type', 'bogus'), loc: at },
      { name: 'instructions number', apply: (b) => put(question(b), 'instructions', 42), loc: [...field, 'instructions'] },
      { name: 'instructions surrogate', apply: (b) => put(question(b), 'instructions', '\uDC00x'), loc: [...field, 'instructions'] },
      {
        name: 'instructions too deep',
        apply: (b) => put(question(b), 'instructions', { q: nest(MAX_NESTING_DEPTH) }),
        loc: [...field, 'instructions', 'q', ...Array<number>(MAX_NESTING_DEPTH - 1).fill(0)],
      },
      { name: 'extra field', apply: (b) => put(question(b), 'options', []), loc: [...field, 'options'] },
    );
    const criteria: Loc = [...field, 'criteria'];
    if (q.type === 'noul') {
      out.push({ name: 'noul criteria string', apply: (b) => put(question(b), 'criteria', 'yes'), loc: criteria });
    } else {
      out.push({ name: 'no criteria', apply: (b) => void delete question(b).criteria, loc: criteria });
      out.push({ name: 'criteria number', apply: (b) => put(question(b), 'criteria', 3), loc: criteria });
    }
    if (q.type === 'choice') {
      const first = Object.keys(q.criteria)[0]!;
      out.push({ name: 'option number', apply: (b) => put(own(question(b), 'criteria'), first, 7), loc: [...criteria, first] });
    }
    if (q.type === 'score') {
      const n = q.criteria.length;
      out.push({ name: 'level null', apply: (b) => put(own(question(b), 'criteria'), String(n - 1), null), loc: [...criteria, n - 1] });
      out.push({ name: 'no levels', apply: (b) => put(question(b), 'criteria', []), loc: criteria });
    }
  }
  return out;
}

describe('defects are reported where they are', () => {
  it('one mutation gives an error at the mutated path', () => {
    const arb = validRequestArb.chain((request) => fc.tuple(fc.constant(request), fc.constantFrom(...mutations(request))));
    fc.assert(
      fc.property(arb, ([request, mutation]) => {
        const body = clone(request);
        mutation.apply(body);
        const errors = checkShape(body);
        const locs = errors.map((e) => JSON.stringify(e.loc));
        expect(locs, mutation.name).toContain(JSON.stringify(mutation.loc));
      }),
      { numRuns: 300 },
    );
  });

  it('independent defects give at least as many errors, each at its path', () => {
    const arb = validRequestArb.chain((request) => {
      const ids = Object.keys(request.questions);
      return fc.tuple(
        fc.constant(request),
        fc.subarray(['state', 'model', 'document'] as const),
        fc.subarray(ids),
      );
    });
    fc.assert(
      fc.property(arb, ([request, top, ids]) => {
        fc.pre(top.length + ids.length >= 2);
        const body = clone(request);
        const expected: Loc[] = [];
        for (const field of top) {
          put(body, field, field === 'document' ? 'old' : 42);
          expected.push(['body', field]);
        }
        for (const id of ids) {
          const q = own(own(body, 'questions'), id) as Obj;
          put(q, 'instructions', 42);
          expected.push(['body', 'questions', id, q.type as string, 'instructions']);
        }
        const errors = checkShape(body);
        expect(errors.length).toBeGreaterThanOrEqual(expected.length);
        for (const loc of expected) expect(errors.some((e) => sameLoc(e.loc, loc))).toBe(true);
      }),
    );
  });
});
