/**
 * The specification's answer invariants, for a `transformers-nli` model, over generated requests
 * (fast-check), on the tiny random model through transformers.js: shapes and confidence rules,
 * permutation invariance of choice options, mirroring of score rubrics, the noul criteria swap,
 * determinism and independence from other questions and ids. Exact equality where the method
 * promises it (the same hypotheses run in the same order), not approximate.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choiceConfidence, createEngine, scoreConfidence, type Answer, type Content, type Engine, type Question, type Questions } from '../src/index.js';
import { renderQuestion } from '../src/canonical/index.js';
import { questionHypotheses } from '../src/transformers/hypotheses.js';
import { contentArb, instructionsArb, keyArb, noulArb, scoreArb, stateArb } from './arbitraries.js';
import { hasTransformers, removeTinyModels, tinyModel } from './nli-helpers.js';

const choiceArb = fc.record({
  type: fc.constant('choice' as const),
  instructions: instructionsArb,
  criteria: fc.dictionary(keyArb, fc.option(contentArb, { nil: null }), { minKeys: 1, maxKeys: 8, noNullPrototype: true }),
});
const questionArb: fc.Arbitrary<Question> = fc.oneof(noulArb, choiceArb, scoreArb);
const questionsArb = fc.dictionary(keyArb, questionArb, { minKeys: 1, maxKeys: 4, noNullPrototype: true });

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function expectShape(q: Question, a: Answer): void {
  expect(a.type).toBe(q.type);
  if (a.type === 'noul') {
    expect(Object.keys(a).sort()).toEqual(['noul', 'type']);
    expect(a.noul >= 0 && a.noul <= 1).toBe(true);
    return;
  }
  const p = Object.values(a.probabilities);
  expect(Math.abs(sum(p) - 1)).toBeLessThan(1e-9);
  p.forEach((x) => expect(x >= 0 && x <= 1).toBe(true));
  if (a.type === 'choice' && q.type === 'choice') {
    const names = Object.keys(q.criteria);
    expect(Object.keys(a.probabilities)).toEqual(names);
    expect(a.choice).toBe(names[p.indexOf(Math.max(...p))]);
    expect(a.confidence).toBe(choiceConfidence(p));
  } else if (a.type === 'score' && q.type === 'score') {
    const keys = q.criteria.map((_, i) => String(i));
    expect(Object.keys(a.probabilities)).toEqual(keys);
    expect(Object.values(a.legend)).toEqual(q.criteria as Content[]);
    expect(Math.abs(a.score - sum(p.map((x, i) => i * x)))).toBeLessThan(1e-9);
    expect(a.confidence).toBe(scoreConfidence(p));
  }
}

/** The same record with its keys in another order (own properties, any key). */
function reordered<T>(record: Record<string, T>, order: number[]): Record<string, T> {
  const keys = Object.keys(record);
  const out: Record<string, T> = {};
  for (const i of order) Object.defineProperty(out, keys[i]!, { value: record[keys[i]!], enumerable: true, writable: true, configurable: true });
  return out;
}

describe.skipIf(!hasTransformers)('transformers-nli invariants over generated requests', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ modelDir: tinyModel({ maxLength: 128 }), defaultModel: 'evalmodel-nli' });
  });
  afterAll(async () => {
    await engine?.close();
    removeTinyModels();
  });

  it('keeps every answer shape and confidence rule; usage counts state and questions', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, questionsArb, async (state, questions) => {
        const res = await engine.evaluate(state, questions);
        expect(res.model).toBe('evalmodel-0.1.0');
        expect(Object.keys(res.answers)).toEqual(Object.keys(questions));
        for (const [id, q] of Object.entries(questions)) expectShape(q, res.answers[id]!);
        expect(res.usage.output_tokens).toBe(0);
      }),
      { numRuns: 25 },
    );
  });

  it('is deterministic and independent of other questions and of ids, bit for bit', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, questionsArb, async (state, questions) => {
        const first = await engine.evaluate(state, questions);
        for (const [id, q] of Object.entries(questions)) {
          const single = await engine.evaluate(state, { 'another id': q });
          expect(single.answers['another id']).toEqual(first.answers[id]);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('choice: reordering the options reorders nothing but the keys (exactly)', async () => {
    const arb = fc
      .tuple(stateArb, choiceArb.filter((q) => Object.keys(q.criteria).length > 1))
      .chain(([state, q]) => fc.tuple(fc.constant(state), fc.constant(q), fc.shuffledSubarray([...Object.keys(q.criteria).keys()], { minLength: Object.keys(q.criteria).length })));
    await fc.assert(
      fc.asyncProperty(arb, async ([state, q, order]) => {
        const a = (await engine.evaluate(state, { q })).answers.q!;
        const b = (await engine.evaluate(state, { q: { ...q, criteria: reordered(q.criteria, order) } })).answers.q!;
        if (a.type !== 'choice' || b.type !== 'choice') throw new Error('not choice');
        for (const name of Object.keys(q.criteria)) expect(b.probabilities[name]).toBe(a.probabilities[name]);
        expect(b.confidence).toBe(a.confidence);
        // Ties between identical options may pick another name, never another probability.
        expect(b.probabilities[b.choice]).toBe(a.probabilities[a.choice]);
      }),
      { numRuns: 20 },
    );
  });

  it('score: reversing the rubric mirrors the probabilities exactly and the score to n - 1 - score', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, scoreArb, async (state, q) => {
        const a = (await engine.evaluate(state, { q })).answers.q!;
        const b = (await engine.evaluate(state, { q: { ...q, criteria: [...q.criteria].reverse() } })).answers.q!;
        if (a.type !== 'score' || b.type !== 'score') throw new Error('not score');
        const n = q.criteria.length;
        const pa = Object.values(a.probabilities);
        expect(Object.values(b.probabilities)).toEqual([...pa].reverse());
        expect(b.score).toBeCloseTo(n - 1 - a.score, 9);
      }),
      { numRuns: 20 },
    );
  });

  it('noul: swapping the true and false criteria gives 1 - p', async () => {
    const arb = fc.record({ instructions: instructionsArb, t: fc.option(contentArb, { nil: null }), f: fc.option(contentArb, { nil: null }) });
    await fc.assert(
      fc.asyncProperty(stateArb, arb, async (state, { instructions, t, f }) => {
        const ask = async (yes: Content | null, no: Content | null) => {
          const questions: Questions = { q: { type: 'noul', instructions, criteria: { true: yes, false: no } } };
          const a = (await engine.evaluate(state, questions)).answers.q!;
          if (a.type !== 'noul') throw new Error('not noul');
          return a.noul;
        };
        // Not when both criteria render to nothing: then the instructions alone are asked.
        const h = questionHypotheses(renderQuestion({ type: 'noul', instructions, criteria: { true: t, false: f } }));
        const none = questionHypotheses(renderQuestion({ type: 'noul', instructions }));
        fc.pre(h.no !== null || h.yes !== none.yes);
        expect(await ask(f, t)).toBeCloseTo(1 - (await ask(t, f)), 12);
      }),
      { numRuns: 20 },
    );
  });
});
