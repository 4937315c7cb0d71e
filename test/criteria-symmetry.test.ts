// Yes/no questions with criteria: swapping the yes and no criteria gives the complement exactly
// (src/heads/criteria-symmetry.ts), for the symmetrisation alone and through the shipped model.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderQuestion } from '../src/canonical/index.js';
import { swappedRendering, symmetricLogits, withSwappedCriteria } from '../src/heads/criteria-symmetry.js';
import type { Question } from '../src/types.js';
import { createEngine, type Engine, type NoulAnswer } from '../src/index.js';

const logit = fc.double({ min: -30, max: 30, noNaN: true });

describe('swappedRendering', () => {
  it('renders a yes/no question with its criteria exchanged, and only when that is another question', () => {
    const swap = (q: Question) => swappedRendering(q, renderQuestion(q));
    expect(swap({ type: 'noul', instructions: 'Is it late?' })).toBeNull();
    expect(swap({ type: 'noul', instructions: 'Is it late?', criteria: { true: 'same', false: 'same' } })).toBeNull();
    expect(swap({ type: 'choice', instructions: 'Which?', criteria: { a: 'x', b: 'y' } })).toBeNull();
    expect(swap({ type: 'noul', instructions: 'Is it late?', criteria: { true: 'after noon', false: 'before noon' } })).toEqual(
      renderQuestion({ type: 'noul', instructions: 'Is it late?', criteria: { true: 'before noon', false: 'after noon' } }),
    );
    expect(swap({ type: 'noul', instructions: 'Is it late?', criteria: { true: 'after noon' } })).toEqual(
      renderQuestion({ type: 'noul', instructions: 'Is it late?', criteria: { true: null, false: 'after noon' } }),
    );
  });
});

describe('symmetricLogits', () => {
  it('gives a question and its swapped copy opposite yes log-odds, and leaves the others alone', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('noul', 'choice') as fc.Arbitrary<'noul' | 'choice'>, fc.boolean(), logit, logit, logit, logit), { minLength: 1, maxLength: 12 }), (qs) => {
        const inputs = qs.map(([type]) => ({ type, lines: ['a', 'b'] }));
        // A swapped rendering exists only for yes/no questions whose criteria differ (swappedRendering).
        const swaps = qs.map(([type, differ]) => (type === 'noul' && differ ? 'the swapped rendering' : null));
        const { all, swapped } = withSwappedCriteria(inputs, swaps);
        expect(swapped).toEqual(qs.flatMap(([type, differ], i) => (type === 'noul' && differ ? [i] : [])));
        expect(all.slice(inputs.length).map((q) => q.lines)).toEqual(swapped.map(() => ['b', 'a']));
        // Logits as heads would give them: the originals, then the swapped copies.
        const raw = [...qs.map(([, , a, b]) => [a, b]), ...swapped.map((i) => [qs[i]![4], qs[i]![5]])];
        const own = symmetricLogits(raw, qs.length, swapped);
        // The swapped copies asked as questions of their own, with the originals as their copies.
        const flipped = [...swapped.map((i) => [qs[i]![4], qs[i]![5]]), ...swapped.map((i) => [qs[i]![2], qs[i]![3]])];
        const other = symmetricLogits(flipped, swapped.length, swapped.map((_, k) => k));
        swapped.forEach((i, k) => {
          expect(own[i]![1]).toBe(0);
          expect(own[i]![0]! + other[k]![0]!).toBeCloseTo(0, 12);
        });
        qs.forEach((_, i) => {
          if (!swapped.includes(i)) expect(own[i]).toEqual(raw[i]);
        });
      }),
    );
  });
});

describe('through the shipped model', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ exact: false });
  });
  afterAll(() => engine.close());

  it('answers a question with its criteria swapped with the complement, and one without criteria as before', async () => {
    const state = 'The parcel arrived two weeks late and the box was crushed. I want my money back.';
    const cases = [
      ['Is the customer unhappy?', 'The customer is angry or disappointed', 'The customer is satisfied'],
      ['Does the customer ask for a refund?', 'asks for money back', 'does not mention money'],
      ['Was the delivery on time?', 'arrived when promised', 'arrived late'],
    ] as const;
    for (const [instructions, yes, no] of cases) {
      const r = await engine.evaluate(state, {
        q: { type: 'noul', instructions, criteria: { true: yes, false: no } },
        swapped: { type: 'noul', instructions, criteria: { true: no, false: yes } },
        onlyYes: { type: 'noul', instructions, criteria: { true: yes } },
        onlyYesSwapped: { type: 'noul', instructions, criteria: { false: yes } },
        plain: { type: 'noul', instructions },
      });
      const p = (id: string) => (r.answers[id] as NoulAnswer).noul;
      expect(p('q') + p('swapped')).toBeCloseTo(1, 9);
      expect(p('onlyYes') + p('onlyYesSwapped')).toBeCloseTo(1, 9);
      // A question without criteria is not pulled to 0.5 by a copy of itself.
      expect(Math.abs(p('plain') - 0.5)).toBeGreaterThan(1e-3);
    }
  });
});
