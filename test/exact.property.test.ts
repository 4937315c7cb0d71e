/**
 * Invariants of the exact-answer stage, over generated states and wordings (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactAnswer } from '../src/exact/index.js';
import { parseQuantity } from '../src/exact/quantity.js';
import type { Answer, Question, State } from '../src/types.js';
import { questionArb, stateArb } from './arbitraries.js';

const noul = (instructions: string): Question => ({ type: 'noul', instructions });

function yes(state: State, text: string): boolean | undefined {
  const a = exactAnswer(state, noul(text)).answer;
  return a?.type === 'noul' ? a.noul > 0.5 : undefined;
}

/** Comparator wordings with their meaning. */
const COMPARATORS: [string, (v: number, t: number) => boolean][] = [
  ['more than', (v, t) => v > t],
  ['above', (v, t) => v > t],
  ['over', (v, t) => v > t],
  ['greater than', (v, t) => v > t],
  ['at least', (v, t) => v >= t],
  ['no less than', (v, t) => v >= t],
  ['less than', (v, t) => v < t],
  ['below', (v, t) => v < t],
  ['under', (v, t) => v < t],
  ['at most', (v, t) => v <= t],
  ['no more than', (v, t) => v <= t],
];

/** Field names with the unit their suffix carries, and how a question writes a constant in that unit. */
const FIELDS: [string, (t: string) => string][] = [
  ['total', (t) => t],
  ['total_usd', (t) => `$${t}`],
  ['amount_eur', (t) => `€${t}`],
  ['weight_kg', (t) => `${t} kg`],
  ['distance_km', (t) => `${t} km`],
  ['duration_min', (t) => `${t} minutes`],
  ['speed_kmh', (t) => `${t} km/h`],
  ['discount_pct', (t) => `${t}%`],
];

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** A question about field `f` against constant text `c`, in one of several wordings. */
const WORDINGS: ((f: string, cmp: string, c: string) => string)[] = [
  (f, cmp, c) => `Is \`${f}\` ${cmp} ${c}?`,
  (f, cmp, c) => `\`${f}\` is ${cmp} ${c}.`,
  (f, cmp, c) => `Is it true that \`${f}\` is ${cmp} ${c}?`,
  (f, cmp, c) => `True or false: \`${f}\` is ${cmp} ${c}.`,
];

describe('exact stage invariants', () => {
  it('thresholds: right on both sides, flips across the threshold and not away from it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELDS),
        fc.constantFrom(...COMPARATORS),
        fc.constantFrom(...WORDINGS),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 5000 }),
        ([field, unit], [cmp, holds], wording, t, d1, d2) => {
          const q = wording(field, cmp, unit(fmt(t)));
          const at = (v: number) => yes({ [field]: v, other: t + 1 }, q);
          // Exactly at, just above, just below, far above, far below.
          for (const v of [t, t + d1, t - d1, t + d1 + d2, t - d1 - d2]) expect(at(v)).toBe(holds(v, t));
          // Moving across flips a strict answer; moving further away keeps it.
          expect(at(t + d1)).toBe(at(t + d1 + d2));
          expect(at(t - d1)).toBe(at(t - d1 - d2));
          expect(at(t + d1)).not.toBe(at(t - d1));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('unit conversions round-trip: the same amount in another unit answers the same', () => {
    const SAME: [string, string, number][] = [
      ['kg', 'g', 1000],
      ['km', 'm', 1000],
      ['hours', 'minutes', 60],
      ['weeks', 'days', 7],
      ['days', 'hours', 24],
      ['GB', 'MB', 1000],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...SAME), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 }), ([big, small, ratio], x, v) => {
        const a = parseQuantity(`${x} ${big}`)!;
        const b = parseQuantity(`${x * ratio} ${small}`)!;
        expect(a.dim).toBe(b.dim);
        expect(Math.abs(a.value - b.value)).toBeLessThanOrEqual(1e-9 * Math.abs(a.value));
        // A field stated in the big unit compared with the threshold written in either unit.
        const field = { [`size_${big.toLowerCase()}`]: v };
        const inBig = yes(field, `Is \`size_${big.toLowerCase()}\` above ${x} ${big}?`);
        const inSmall = yes(field, `Is \`size_${big.toLowerCase()}\` above ${fmt(x * ratio)} ${small}?`);
        expect(inBig).toBe(v > x);
        expect(inSmall).toBe(inBig);
      }),
      { numRuns: 200 },
    );
  });

  it('symmetric comparisons: swapping the two fields changes nothing; swapping a strict order mirrors it', () => {
    const value = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constantFrom('DE', 'de', 'FR', 'Fr.', 'us'), fc.constantFrom('2025-03-01', '2025-03-02', '2024-12-31'));
    fc.assert(
      fc.property(value, value, fc.constantFrom('the same as', 'equal to', 'different from'), (x, y, cmp) => {
        const state = { a: { v: x }, b: { v: y } };
        const ab = yes(state, `Is \`a.v\` ${cmp} \`b.v\`?`);
        const ba = yes(state, `Is \`b.v\` ${cmp} \`a.v\`?`);
        expect(ab).toBe(ba);
        if (typeof x === 'number' && typeof y === 'number') {
          expect(yes(state, `Is \`a.v\` greater than \`b.v\`?`)).toBe(yes(state, `Is \`b.v\` less than \`a.v\`?`));
        }
      }),
    );
  });

  it('abstains on any wording it cannot bind: unknown references, unknown labels, text numbers of other units', () => {
    const words = fc.constantFrom('is', 'the', 'total', 'more', 'than', 'at', 'least', 'below', 'not', 'any', 'every', 'and', 'amount', 'paid', '5', '$20', '3 km', 'days', '`ghost`', '`missing.field`', 'if', 'would', '?', '.');
    const textState = fc
      .array(fc.tuple(fc.constantFrom('Shipping', 'Weight', 'Delay', 'Refund', 'Distance'), fc.integer({ min: 1, max: 999 }), fc.constantFrom('$', 'kg', 'days', 'km', '%')), { minLength: 2, maxLength: 5 })
      .map((parts) => parts.map(([label, n, u]) => (u === '$' ? `${label} $${n}.` : `${label} ${n} ${u}.`)).join(' '));
    fc.assert(
      fc.property(fc.array(words, { minLength: 1, maxLength: 10 }), textState, (ws, text) => {
        // References to fields that do not exist never bind.
        const q = ws.join(' ');
        if (q.includes('`')) expect(exactAnswer({ total: 5, amount: 3 }, noul(q)).answer).toBeUndefined();
        // In a text state, a label that is none of the state's labels never binds.
        expect(yes(text, 'Is the penalty fee above $10?')).toBeUndefined();
        // Nor does a unit whose dimension the text lacks (speed), or a unitless number.
        expect(yes(text, 'Is the delay more than 2 mph?')).toBeUndefined();
        expect(yes(text, 'Is the weight above 10?')).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('in a text state with several units, binds the labelled number of the question\'s unit only', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 500 }), (w, d, s, t) => {
        const text = `Parcel report. Weight ${w} kg. Delay ${d} days. Shipping fee $${s}.`;
        expect(yes(text, `Is the weight above ${t} kg?`)).toBe(w > t);
        expect(yes(text, `Is the shipping fee under $${t}?`)).toBe(s < t);
        expect(yes(text, `Is the delay at least ${t} days?`)).toBe(d >= t);
        // The right label with another dimension's unit binds nothing.
        expect(yes(text, `Is the weight above $${t}?`)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('never throws, and every answer it gives has its question\'s shape', () => {
    fc.assert(
      fc.property(stateArb, questionArb, (state, question) => {
        const out = exactAnswer(state, question);
        if (out.answer) checkShape(question, out.answer);
      }),
      { numRuns: 500 },
    );
  });

  it('choice answers are invariant to option order; score answers mirror with reversed levels', () => {
    const buckets = ['none', '1-2', '3-5', '6 or more'];
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 12 }), fc.integer({ min: 0, max: 20 }), fc.func(fc.integer()), (values, t, order) => {
        const state = { rows: values.map((v) => ({ v })) };
        const text = `How many entries in \`rows\` have \`v\` greater than ${t}?`;
        const expected = values.filter((v) => v > t).length;
        const level = expected === 0 ? 0 : expected <= 2 ? 1 : expected <= 5 ? 2 : 3;
        const score = exactAnswer(state, { type: 'score', instructions: text, criteria: buckets }).answer;
        const mirrored = exactAnswer(state, { type: 'score', instructions: text, criteria: [...buckets].reverse() }).answer;
        if (score?.type !== 'score' || mirrored?.type !== 'score') throw new Error('expected score answers');
        expect(score.probabilities[String(level)]).toBeGreaterThan(0.5);
        expect(score.score + mirrored.score).toBeCloseTo(buckets.length - 1, 12);
        const keys = [...buckets].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
        const criteria = Object.fromEntries(keys.map((k) => [k, null]));
        const choice = exactAnswer(state, { type: 'choice', instructions: text, criteria }).answer;
        expect(choice?.type === 'choice' && choice.choice).toBe(buckets[level]);
      }),
      { numRuns: 200 },
    );
  });
});

function checkShape(question: Question, answer: Answer): void {
  expect(answer.type).toBe(question.type);
  if (answer.type === 'noul') {
    expect(answer.noul).toBeGreaterThanOrEqual(0);
    expect(answer.noul).toBeLessThanOrEqual(1);
    return;
  }
  const probs = Object.values(answer.probabilities);
  expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  if (answer.type === 'choice' && question.type === 'choice') {
    expect(Object.keys(answer.probabilities)).toEqual(Object.keys(question.criteria));
    expect(answer.probabilities[answer.choice]).toBe(Math.max(...probs));
  }
  if (answer.type === 'score' && question.type === 'score') {
    expect(Object.keys(answer.probabilities)).toHaveLength(question.criteria.length);
    expect(answer.score).toBeCloseTo(probs.reduce((s, p, i) => s + i * p, 0), 9);
  }
}
