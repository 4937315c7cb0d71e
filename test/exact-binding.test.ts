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
    // A reference into structured instructions' data never falls back to the text.
    const question = { type: 'noul', instructions: { question: 'Is `opening.balance` above $600?', opening: { cap: 5 } } } as const;
    expect(explainExact(text, question).answered).toBe(false);
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

describe('a field named with its owner', () => {
  const state = { name: 'Ann', age: 34, total: '$45.20' };

  it('reads through an owner that names nothing in the state, or names the holder', () => {
    expect(yes(state, "Is the customer's age over 30?")).toBe(true);
    expect(yes(state, 'Is the order total more than $100?')).toBe(false);
    expect(yes(state, "Is the order's total at least $45?")).toBe(true);
    expect(yes(state, "Is Ann's age under 30?")).toBe(false);
    expect(explainExact(state, noul("Is the customer's age over 30?")).bound.at(-1)?.from).toBe('"the customer\'s age" -> `age`');
    // The holder's name or first name, parent keys, a top-level key naming the record.
    const family = { name: 'Ann', age: 34, partner: { name: 'Bob Lee', age: 40 } };
    expect(yes(family, "Is Bob's age over 38?")).toBe(true);
    expect(yes(family, "Is Bob Lee's age over 38?")).toBe(true);
    expect(yes(family, "Is Ann's age over 38?")).toBe(false);
    expect(yes(family, "Is the partner's age over 38?")).toBe(true);
    expect(yes({ student: 'Maya Solis', attendance_pct: 96 }, "Is Maya's attendance above 95 percent?")).toBe(true);
    expect(yes({ pet: { name: 'Biscuit', age_years: 3 }, owner: 'Ann' }, "Is Biscuit's age over 5?")).toBe(false);
    expect(yes({ owner: { age: 40 }, pet: { age: 3 } }, "Is the pet's age over 5?")).toBe(false);
  });

  it('abstains when the owner may name another thing than the field\'s record', () => {
    // A person who is not the record's, a time, a modifier that names another quantity.
    expect(yes(state, "Is Bob's age over 30?")).toBeUndefined();
    expect(yes(state, "Is today's total more than $10?")).toBeUndefined();
    expect(yes(state, 'Is the shipping total more than $10?')).toBeUndefined();
    expect(yes(state, "Is the dog's age over 3?")).toBeUndefined();
    // The owner word is in the state: it may be another record.
    expect(yes({ ...state, note: 'customer since 2019' }, "Is the customer's age over 30?")).toBeUndefined();
    expect(yes({ ...state, note: 'order placed online' }, 'Is the order total more than $100?')).toBeUndefined();
    // An owner that names nothing stands for the record: never a nested field, never two.
    expect(yes({ name: 'Ann', pet: { age: 3 } }, "Is the customer's age over 2?")).toBeUndefined();
    expect(yes({ name: 'Ann', age: 34, age_years: 34 }, "Is the customer's age over 2?")).toBeUndefined();
    expect(yes({ name: 'Ann', age: 34, children: [{ age: 3 }] }, "Is the customer's age over 2?")).toBeUndefined();
    expect(yes({ name: 'Ann', age: 34, partner: { name: 'Bob', age: 40 } }, 'Is the customer older than 35?')).toBeUndefined();
    // A name said by two texts, two possessives.
    expect(yes({ name: 'Ann', age: 34, partner: { name: 'Ann', age: 40 } }, "Is Ann's age over 38?")).toBeUndefined();
    expect(yes(state, "Is the customer's order's total more than $10?")).toBeUndefined();
  });

  it('an owned label, a plain label and a reference answer alike and agree with the numbers', () => {
    const owners = ['customer', 'user', 'patient', 'member', 'client', 'applicant'];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 120 }), fc.constantFrom(...COMPARATORS), fc.constantFrom(...owners), fc.boolean(), (v, t, [cmp, holds], owner, nested) => {
        const s = { name: 'Ann Lee', age: v, ...(nested ? { guardian: { name: 'Bo', age: t } } : {}) };
        const byName = yes(s, `Is Ann's age ${cmp} ${t}?`);
        expect(byName).toBe(holds(v, t));
        expect(yes(s, `Is \`age\` ${cmp} ${t}?`)).toBe(byName);
        // Another object with an age of its own: "the customer" may be the guardian; the name is not.
        const owned = yes(s, `Is the ${owner}'s age ${cmp} ${t}?`);
        const plain = yes(s, `Is the age ${cmp} ${t}?`);
        expect(owned).toBe(nested ? undefined : byName);
        expect(plain).toBe(nested ? undefined : byName);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a comparative adjective that implies its field', () => {
  const state = { name: 'Ann', age: 34, total: '$45.20' };

  it('compares the one field the adjective names, for the subject as an owner', () => {
    expect(yes(state, 'Is the customer older than 30?')).toBe(true);
    expect(yes(state, 'Is the customer younger than 30?')).toBe(false);
    expect(yes(state, 'Ann is older than 40.')).toBe(false);
    expect(yes(state, 'Is the customer younger than 35 years old?')).toBe(true);
    expect(yes({ pet: { name: 'Biscuit', species: 'dog', age_years: 3 } }, 'Is Biscuit older than 5?')).toBe(false);
    // An age in years: a field in days compares in days; a bare number against days is unclear.
    expect(yes({ pet: { name: 'Biscuit', age_days: 400 } }, 'Is Biscuit older than 1 year?')).toBe(true);
    expect(yes({ pet: { name: 'Biscuit', age_days: 400 } }, 'Is Biscuit older than 2 years?')).toBe(false);
    expect(yes({ pet: { name: 'Biscuit', age_days: 400 } }, 'Is Biscuit older than 1?')).toBeUndefined();
    expect(yes({ order: 'O-1', age_days: 45 }, 'Is the order older than 30?')).toBeUndefined();
    expect(yes({ patient: 'Ola', age_days: 400 }, 'Is the patient over 1?')).toBeUndefined();
    expect(yes({ name: 'Ann', age: 34 }, 'Is the customer older than 30 years?')).toBe(true);
    expect(yes({ parcel: 'P-1', weight_kg: 1.8 }, 'Is the parcel lighter than 2 kg?')).toBe(true);
    expect(yes({ parcel: 'P-1', weight_kg: 1.8 }, 'Is the parcel heavier than 1,500 g?')).toBe(true);
    expect(yes({ name: 'Ann', height_cm: 172 }, 'Is the patient taller than 1.8 m?')).toBe(false);
    expect(yes({ product: 'lamp', price: '$30' }, 'Is the lamp cheaper than $25?')).toBe(false);
    expect(yes({ product: 'lamp', price: '$30' }, 'Is the lamp more expensive than $25?')).toBe(true);
    expect(yes({ name: 'Ann', age: 34, age_limit: 18 }, 'Is the customer older than `age_limit`?')).toBe(true);
  });

  it('abstains when the field, the subject or the constant is not certain', () => {
    // No age field, another person, two age fields, a pronoun.
    expect(yes({ name: 'Ann', total: 3 }, 'Is the customer older than 30?')).toBeUndefined();
    expect(yes(state, 'Is Bob older than 30?')).toBeUndefined();
    expect(yes({ name: 'Ann', age: 34, age_years: 34 }, 'Is the customer older than 30?')).toBeUndefined();
    expect(yes(state, 'Is she older than 30?')).toBeUndefined();
    // A year, a duration that is not years, a unit of another dimension, another field.
    expect(yes(state, 'Is the customer older than 2015?')).toBeUndefined();
    expect(yes(state, 'Is the customer older than 30 days?')).toBeUndefined();
    expect(yes({ parcel: 'P-1', weight_kg: 1.8 }, 'Is the parcel lighter than $2?')).toBeUndefined();
    expect(yes(state, 'Is Ann older than Bob?')).toBeUndefined();
    // Prose states: an unlabelled count never binds.
    expect(yes('Membership form - Name: Walter Ng. Age: 63.', 'Is Walter younger than 65?')).toBeUndefined();
  });

  it('reads a person over or under a whole number as their age', () => {
    expect(yes({ patient: 'Greta Solberg', age: 47 }, 'Is the patient over 40?')).toBe(true);
    expect(yes({ passenger: { name: 'Edith Carrow', age: 64 }, fare_type: 'standard' }, 'Is the passenger under 65?')).toBe(true);
    expect(yes(state, 'Is the customer under 18?')).toBe(false);
    expect(yes(state, 'The customer is at least 34.')).toBe(true);
    // Other roles, fractions, years, units, no age field, equality: the plain reading (abstains here).
    expect(yes({ name: 'Ann', age: 34, speed_mph: 80 }, 'Is the driver over 70?')).toBeUndefined();
    expect(yes(state, 'Is the customer over 30.5?')).toBeUndefined();
    expect(yes(state, 'Is the customer over 1990?')).toBeUndefined();
    expect(yes({ name: 'Ann', age: 34, weight_kg: 70 }, 'Is the customer over 60 kg?')).toBeUndefined();
    expect(yes({ patient: 'Ola Nowak', dob: '2012-05-30' }, 'Is the patient over 18?')).toBeUndefined();
    expect(yes(state, 'Is the customer exactly 34?')).toBeUndefined();
  });

  it('agrees with the numbers and with the field named outright', () => {
    const ADJ: [string, string, string, (v: number, t: number) => boolean, (t: number) => string][] = [
      ['older', 'age', 'over', (v, t) => v > t, (t) => `${t}`],
      ['younger', 'age', 'under', (v, t) => v < t, (t) => `${t}`],
      ['heavier', 'weight_kg', 'above', (v, t) => v > t, (t) => `${t} kg`],
      ['lighter', 'weight_kg', 'below', (v, t) => v < t, (t) => `${t} kg`],
      ['taller', 'height_cm', 'above', (v, t) => v > t, (t) => `${t} cm`],
      ['cheaper', 'price', 'less than', (v, t) => v < t, (t) => `$${t}`],
      ['more expensive', 'price', 'more than', (v, t) => v > t, (t) => `$${t}`],
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 0, max: 150 }), fc.constantFrom(...ADJ), fc.constantFrom('the customer', 'the item', 'Ann'), (v, t, [adj, field, cmp, holds, unit], who) => {
        const s = { name: 'Ann', [field]: field === 'price' ? `$${v}` : v };
        const implied = yes(s, `Is ${who} ${adj} than ${unit(t)}?`);
        if (who === 'the item') {
          // "item" is no record noun: an owner that names nothing must be one.
          expect(implied).toBeUndefined();
          return;
        }
        expect(implied).toBe(holds(v, t));
        expect(yes(s, `Is \`${field}\` ${cmp} ${unit(t)}?`)).toBe(implied);
      }),
      { numRuns: 400 },
    );
  });
});

describe('a person\'s plain number is their age', () => {
  it('answers like the age field named outright, for every person noun and comparator', () => {
    const people = ['patient', 'passenger', 'customer', 'applicant', 'student', 'member'];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 0, max: 150 }), fc.constantFrom(...COMPARATORS), fc.constantFrom(...people), (v, t, [cmp, holds], who) => {
        const s = { [who]: 'Sam Okoro', age: v };
        const byPerson = yes(s, `Is the ${who} ${cmp} ${t}?`);
        expect(byPerson).toBe(holds(v, t));
        expect(yes(s, `Is \`age\` ${cmp} ${t}?`)).toBe(byPerson);
      }),
      { numRuns: 300 },
    );
  });
});
