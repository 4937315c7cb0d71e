/**
 * How the exact stage binds a question's operand to the state: a backtick reference against a
 * state sent as JSON text or as prose, a field named with its owner ("the customer's age",
 * "the order total"), and a comparative adjective that implies its field ("older than 30").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainExact } from '../src/exact/index.js';
import { noul, yes } from './exact-helpers.js';

const COMPARATORS: [string, (v: number, t: number) => boolean][] = [
  ['more than', (v, t) => v > t],
  ['over', (v, t) => v > t],
  ['at least', (v, t) => v >= t],
  ['less than', (v, t) => v < t],
  ['under', (v, t) => v < t],
  ['at most', (v, t) => v <= t],
];

const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;

describe('a backtick reference binds at least as well as a label', () => {
  const state = { name: 'Ann', age: 34, total: '$45.20' };

  it('reads a string state that is one JSON object or array as that data', () => {
    const text = JSON.stringify(state);
    expect(yes(text, 'Is `total` more than $100?')).toBe(false);
    expect(yes(text, 'Is `total` at least $45.20?')).toBe(true);
    expect(yes(text, 'Is the total more than $100?')).toBe(false);
    expect(yes(`  ${JSON.stringify(state, null, 2)}\n`, 'Is `age` over 30?')).toBe(true);
    expect(yes(JSON.stringify([{ v: 3 }, { v: 9 }]), 'Does any element of `[]` have `v` greater than 5?')).toBeUndefined();
    expect(yes(JSON.stringify({ rows: [{ v: 3 }, { v: 9 }] }), 'Does any element of `rows` have `v` greater than 5?')).toBe(true);
    expect(explainExact(text, noul('Is `total` more than $100?')).bound[0]?.from).toBe('`total`');
    // Text that only looks like JSON, and a JSON string, stay text (bound by their words).
    for (const s of ['{total: $45.20}', '"total $45.20"']) {
      expect(explainExact(s, noul('Is `total` more than $100?')).bound[0]?.from).toMatch(/^`total` -> state text/);
    }
  });

  it('binds a reference in a text state as the label its key words make', () => {
    const text = 'Statement for August. Opening balance 1 Aug: $612.40. Closing balance: $80.10.';
    expect(yes(text, 'Is `opening_balance` above $600?')).toBe(true);
    expect(yes(text, 'Is `closing_balance` above $600?')).toBe(false);
    expect(explainExact(text, noul('Is `opening_balance` above $600?')).bound[0]?.from).toMatch(/^`opening_balance` -> state text/);
    // Unit rules of a label: a number of the constant's unit, a name's unit that agrees.
    expect(yes(text, 'Is `opening_balance` above 600?')).toBeUndefined();
    expect(yes(text, 'Is `opening_balance_eur` above $600?')).toBeUndefined();
    expect(yes(text, 'Is `opening_balance_usd` above $600?')).toBe(true);
    // Two different values for the words, lists and unknown words: abstain.
    expect(yes(text, 'Is `balance` above $600?')).toBeUndefined();
    expect(yes(text, 'Is `items[0].price` above $600?')).toBeUndefined();
    expect(yes(text, 'Is `penalty` above $6?')).toBeUndefined();
  });

  it('a reference and a label naming the same field answer alike and agree with the numbers, in JSON, JSON text and prose', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), fc.constantFrom(...COMPARATORS), (v, t, [cmp, holds]) => {
        const json = { name: 'Ann', age: 34, total: money(v) };
        const states = [json, JSON.stringify(json), `Order for Ann. Order total: ${money(v)}.`];
        for (const s of states) {
          const byRef = yes(s, `Is \`total\` ${cmp} ${money(t)}?`);
          expect(byRef).toBe(holds(v, t));
          expect(yes(s, `Is the total ${cmp} ${money(t)}?`)).toBe(byRef);
        }
      }),
      { numRuns: 300 },
    );
  });
});
