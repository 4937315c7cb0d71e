/**
 * The counterfactual generators of `npm run data`: every pair is two well-formed cases with the
 * same questions, states that differ, and a first question whose gold flips; for JSON states
 * the golds of number and date questions are recomputed here, independently, from the state's
 * value and the question's words. And the pair-aware batches keep every group in one batch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/types.js';
import { rng } from '../src/training/data.js';
import { pairAwareBatches, pairUnits } from '../src/training/data/batches.js';
import { orderByGroup } from '../src/training/data/build.js';
import { caseProblem } from '../src/training/data/check.js';
import { datePair } from '../src/training/data/gen-dates.js';
import { numberPair } from '../src/training/data/gen-numbers.js';
import { equalityPair, fieldPair, listPair } from '../src/training/data/gen-records.js';
import { generatedCases } from '../src/training/data/generated.js';
import type { DataCase } from '../src/training/data/types.js';

const GENERATORS = { numberPair, datePair, fieldPair, listPair, equalityPair };
const DISTRACTORS = new Set(['id', 'created', 'owner', 'region', 'notes']);

/** The comparison a threshold question names, read back from its words. */
function parseComparison(text: string): { op: string; t: number } | null {
  const m = /(more than|over|above|greater than|higher than|at least|no less than|equal to or more than|less than|under|below|lower than|at most|no more than|equal to or less than) [^\d-]*(-?[\d,]+(?:\.\d+)?)/.exec(text);
  return m ? { op: m[1]!, t: Number(m[2]!.replace(/,/g, '')) } : null;
}

function holds(v: number, op: string, t: number): boolean {
  if (['more than', 'over', 'above', 'greater than', 'higher than'].includes(op)) return v > t;
  if (['at least', 'no less than', 'equal to or more than'].includes(op)) return v >= t;
  if (['less than', 'under', 'below', 'lower than'].includes(op)) return v < t;
  return v <= t;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Days since the epoch of a date in one of the generators' formats. */
function parseDay(text: string): number {
  let m = /(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (m) return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) / 864e5;
  m = /(\d{1,2}) ([A-Za-z]+) (\d{4})/.exec(text);
  if (m) return Date.UTC(+m[3]!, MONTHS.indexOf(m[2]!.slice(0, 3).toLowerCase()), +m[1]!) / 864e5;
  m = /([A-Za-z]+) (\d{1,2}), (\d{4})/.exec(text);
  if (m) return Date.UTC(+m[3]!, MONTHS.indexOf(m[1]!.slice(0, 3).toLowerCase()), +m[2]!) / 864e5;
  throw new Error(`no date in ${text}`);
}

describe('counterfactual generators', () => {
  for (const [name, gen] of Object.entries(GENERATORS)) {
    it(`${name}: two well-formed cases, same questions, different states, first gold flips`, () => {
      const random = rng(7);
      let made = 0;
      for (let i = 0; i < 400; i++) {
        const pair = gen(i, random);
        if (pair.length === 0) continue;
        made++;
        expect(pair).toHaveLength(2);
        const [a, b] = pair as [DataCase, DataCase];
        expect(caseProblem(a)).toBeNull();
        expect(caseProblem(b)).toBeNull();
        expect(a.pair).toBe(b.pair);
        expect(a.questions).toEqual(b.questions);
        expect(JSON.stringify(a.state)).not.toBe(JSON.stringify(b.state));
        expect(a.gold.q1, JSON.stringify(pair)).not.toBe(b.gold.q1);
      }
      expect(made).toBeGreaterThan(350);
    });
  }
  it('number golds agree with the JSON value and the threshold the question names', () => {
    const random = rng(8);
    let checked = 0;
    for (let i = 0; i < 600; i++)
      for (const c of numberPair(i, random)) {
        if (typeof c.state !== 'object') continue;
        const value = Object.entries(c.state as JsonObject).find(([k, v]) => typeof v === 'number' && !DISTRACTORS.has(k))![1] as number;
        for (const qid of ['q1', 'q2']) {
          const cmp = parseComparison(String(c.questions[qid]!.instructions));
          expect(cmp, String(c.questions[qid]!.instructions)).not.toBeNull();
          expect(c.gold[qid], `${JSON.stringify(c.state)} ${c.questions[qid]!.instructions}`).toBe(holds(value, cmp!.op, cmp!.t));
          checked++;
        }
      }
    expect(checked).toBeGreaterThan(300);
  });
  it('date golds agree with the JSON date and the deadline the question names', () => {
    const random = rng(9);
    let checked = 0;
    for (let i = 0; i < 600; i++)
      for (const c of datePair(i, random)) {
        if (typeof c.state !== 'object') continue;
        const entries = Object.entries(c.state as JsonObject).filter(([k]) => !DISTRACTORS.has(k));
        const day = parseDay(String(entries[0]![1]));
        const q = String(c.questions.q2!.instructions);
        const deadline = parseDay(q);
        const expected = /\bbefore\b/.test(q) ? day < deadline : day > deadline;
        expect(c.gold.q2, `${JSON.stringify(c.state)} ${q}`).toBe(expected);
        checked++;
      }
    expect(checked).toBeGreaterThan(300);
  });
  it('list golds follow membership, including items moved to the other list', () => {
    const random = rng(10);
    for (let i = 0; i < 300; i++)
      for (const c of listPair(i, random)) {
        const q1 = String(c.questions.q1!.instructions);
        const state = c.state;
        const list = typeof state === 'string' ? state.split('.').find((s) => /Attendees|allergies|Tags|permissions are/.test(s))! : JSON.stringify(Object.values(state as JsonObject).find((v) => Array.isArray(v)));
        const item = /^(?:Is|Does|Will)\s+(?:the user lack the |the user have the |the patient allergic to |the record list an allergy to |the ticket carry the |the ")?("?)([A-Za-z ]+?)\1?"?\s/.exec(q1);
        if (!item) continue;
        const name = item[2]!.trim();
        if (!/^[A-Z]/.test(name) && !['peanuts', 'gluten', 'milk', 'eggs', 'soy', 'sesame'].includes(name)) continue;
        const present = list.includes(name);
        const negated = /missing|not |lack|absent|without/.test(q1);
        expect(c.gold.q1, `${JSON.stringify(state)} ${q1}`).toBe(negated ? !present : present);
      }
  });
  it('splits generated pairs by group and makes every generator produce', () => {
    const placed = generatedCases({ numbers: 50, dates: 50, fields: 50, lists: 50, equality: 50 });
    const byPair = new Map<string, Set<string>>();
    for (const p of placed) byPair.set(p.case.pair!, (byPair.get(p.case.pair!) ?? new Set()).add(p.split));
    expect([...byPair.values()].every((s) => s.size === 1)).toBe(true);
    expect(new Set(placed.map((p) => p.case.source)).size).toBe(5);
    expect(JSON.stringify(generatedCases({ lists: 20 }))).toBe(JSON.stringify(generatedCases({ lists: 20 })));
  });
});

describe('pair-aware batching', () => {
  const arbCases = fc.array(fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }), { maxLength: 300 }).map((groups) => groups.map((g, i) => ({ id: i, ...(g === undefined ? {} : { pair: `p${g}` }) })));
  it('puts each pair group in one batch, every case exactly once, no batch over size', () => {
    fc.assert(
      fc.property(arbCases, fc.integer({ min: 1, max: 64 }), fc.integer(), (cases, size, seed) => {
        const batches = pairAwareBatches(cases, size, rng(seed));
        expect(batches.flat().map((c) => c.id).sort((a, b) => a - b)).toEqual(cases.map((c) => c.id));
        for (const b of batches) expect(b.length).toBeLessThanOrEqual(size);
        for (const unit of pairUnits(cases)) {
          if (unit.length > size) continue;
          const holders = new Set(unit.map((c) => batches.findIndex((b) => b.includes(c))));
          expect(holders.size).toBe(1);
        }
      }),
    );
  });
  it('fills batches: at most a few are short', () => {
    const cases = Array.from({ length: 5000 }, (_, i) => ({ id: i, ...(i % 3 ? { pair: `g${Math.floor(i / 3)}` } : {}) }));
    const batches = pairAwareBatches(cases, 32, rng(1));
    expect(batches.filter((b) => b.length < 32).length).toBeLessThanOrEqual(8);
  });
  it('orders the written files with the cases of a group adjacent', () => {
    const cases = Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, source: 's', state: 'x', questions: {}, gold: {}, ...(i % 4 < 2 ? { pair: `g${Math.floor(i / 4)}` } : {}) }));
    const ordered = orderByGroup(cases, rng(3));
    const pos = new Map(ordered.map((c, i) => [c.id, i]));
    for (const unit of pairUnits(cases)) {
      const at = unit.map((c) => pos.get(c.id)!).sort((a, b) => a - b);
      expect(at[at.length - 1]! - at[0]!).toBe(unit.length - 1);
    }
  });
});
