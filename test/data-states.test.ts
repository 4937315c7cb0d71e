/**
 * The `generated/states` source (opposite states: locked / unlocked, postponed / took place):
 * every pair is two well-formed cases with the same questions and opposite golds for each; golds
 * are recomputed here from the state's words and the lexicon, negations included; the
 * plain-question regression test's own subject and state combinations never appear; fillers name
 * no state; yes and no are balanced; and adding the source leaves every other generator's cases
 * as they were.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/types.js';
import { rng } from '../src/training/data.js';
import { caseProblem } from '../src/training/data/check.js';
import { generatedCases, GENERATED_PAIRS } from '../src/training/data/generated.js';
import { fillers, statePair } from '../src/training/data/gen-states.js';
import { excludedBy, STATE_PAIRS } from '../src/training/data/gen-states-lexicon.js';
import type { DataCase } from '../src/training/data/types.js';
import { loadPlainQuestions } from '../bench/accuracy/plain.js';

const text = (c: DataCase) => `${typeof c.state === 'string' ? c.state : JSON.stringify(c.state)}\n${JSON.stringify(c.questions)}`;
const SOURCE = generatedCases({ states: GENERATED_PAIRS.states! }).map((p) => p.case);

describe('generated/states: the lexicon', () => {
  it('has at least 60 pairs over several subjects, with distinct labels and third states', () => {
    expect(STATE_PAIRS.length).toBeGreaterThanOrEqual(60);
    for (const p of STATE_PAIRS) {
      expect(p.subjects.length, p.a.label).toBeGreaterThanOrEqual(3);
      expect(p.a.label).not.toBe(p.b.label);
      for (const o of p.others) expect([p.a.label, p.b.label]).not.toContain(o);
    }
  });
});

describe('generated/states: pairs', () => {
  it('two well-formed cases, the same questions, different states, every gold opposite', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.integer(), (index, seed) => {
        const cases = statePair(index, rng(seed));
        expect(cases).toHaveLength(2);
        const [a, b] = cases as [DataCase, DataCase];
        expect(caseProblem(a)).toBeNull();
        expect(caseProblem(b)).toBeNull();
        expect(a.pair).toBe(b.pair);
        expect(a.questions).toEqual(b.questions);
        expect(JSON.stringify(a.state)).not.toBe(JSON.stringify(b.state));
        for (const q of Object.keys(a.questions)) expect(a.gold[q], JSON.stringify(cases)).not.toEqual(b.gold[q]);
      }),
      { numRuns: 500 },
    );
  });

  it('the two states differ in one short span only (the state word or a negation)', () => {
    for (const [a, b] of groups(SOURCE.slice(0, 2000))) {
      const [x, y] = [JSON.stringify(a.state), JSON.stringify(b.state)];
      let pre = 0;
      while (pre < x.length && x[pre] === y[pre]) pre++;
      let post = 0;
      while (post < Math.min(x.length, y.length) - pre && x[x.length - 1 - post] === y[y.length - 1 - post]) post++;
      expect(Math.max(x.length, y.length) - pre - post, `${x}\n${y}`).toBeLessThanOrEqual(30);
    }
  });

  it('golds agree with what the state says, recomputed from its words and the lexicon', () => {
    let checked = 0;
    let negated = 0;
    for (const c of SOURCE) {
      for (const [qid, q] of Object.entries(c.questions)) {
        if (q.type !== 'noul' || typeof q.instructions !== 'string') continue;
        const expected = oracle(c.state, q.instructions);
        if (expected === undefined) continue;
        expect(c.gold[qid], `${JSON.stringify(c.state)} / ${q.instructions}`).toBe(expected);
        checked++;
        if (typeof c.state === 'string' && / not /.test(c.state)) negated++;
      }
    }
    expect(checked).toBeGreaterThan(1500);
    expect(negated).toBeGreaterThan(200);
  });

  it('a negated state flips the gold of a question about the stated word', () => {
    let seen = 0;
    for (const [a, b] of groups(SOURCE)) {
      if (typeof a.state !== 'string' || typeof b.state !== 'string') continue;
      const aNot = / (not|did not) /.test(a.state);
      const bNot = / (not|did not) /.test(b.state);
      if (aNot === bNot) continue;
      const [plain, neg] = aNot ? [b, a] : [a, b];
      for (const [qid, q] of Object.entries(plain.questions)) {
        if (q.type !== 'noul' || typeof q.instructions !== 'string') continue;
        const word = askedWord(q.instructions);
        if (word === null || !new RegExp(`\\b(is|are|was|were|been) ${escape(word.word)}\\b`).test(plain.state as string)) continue;
        expect(plain.gold[qid]).toBe(true);
        expect(neg.gold[qid]).toBe(false);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(100);
  });

  it('answers yes to about half of the yes/no questions, asking either word of a pair', () => {
    let yes = 0;
    let all = 0;
    for (const c of SOURCE)
      for (const [qid, q] of Object.entries(c.questions)) {
        if (q.type !== 'noul') continue;
        all++;
        if (c.gold[qid] === true) yes++;
      }
    expect(yes / all).toBeGreaterThan(0.47);
    expect(yes / all).toBeLessThan(0.53);
    // Questions name the first word of a pair about as often as the second.
    const sides = SOURCE.flatMap((c) => Object.values(c.questions)).map((q) => (q.type === 'noul' && typeof q.instructions === 'string' ? askedWord(q.instructions)?.side : undefined)).filter((s) => s !== undefined);
    const first = sides.filter((s) => s === 'a').length / sides.length;
    expect(first).toBeGreaterThan(0.4);
    expect(first).toBeLessThan(0.6);
  });

  it('uses JSON records for about a quarter of the pairs, and choices with the true state as gold', () => {
    const json = SOURCE.filter((c) => typeof c.state !== 'string');
    expect(json.length / SOURCE.length).toBeGreaterThan(0.15);
    expect(json.length / SOURCE.length).toBeLessThan(0.3);
    for (const c of json) {
      const status = (c.state as JsonObject).status;
      for (const [qid, q] of Object.entries(c.questions)) if (q.type === 'choice') expect(c.gold[qid]).toBe(status);
    }
  });
});

describe('generated/states: what it must not produce', () => {
  it('the exclusions cover the plain-question fixture items about opposite states', () => {
    const items = loadPlainQuestions();
    const covered = ['window-closed', 'sunny-rain', 'rain-raining', 'train-ontime', 'train-cancelled', 'flight-landed', 'flight-crashed', 'parcel-on-time', 'never-arrived', 'store-open', 'store-closed', 'coffee-hot', 'milk-none', 'invoice-paid', 'invoice-json-unpaid', 'password-failed', 'order42-lost', 'order43-delivered', 'stock-json', 'dog-sleeping', 'meeting-cancelled', 'server-urgent', 'hotel-bad-stars'];
    for (const id of covered) {
      const it = items.find((i) => i.id === id)!;
      expect(it, id).toBeDefined();
      expect(excludedBy(`${JSON.stringify(it.state)}\n${JSON.stringify(it.question)}`), id).not.toBeNull();
    }
  });

  it('no generated case uses an excluded subject and state combination', () => {
    for (const c of SOURCE) expect(excludedBy(text(c)), text(c)).toBeNull();
  });

  it('filler sentences name no state word of the lexicon', () => {
    const words = new Set(STATE_PAIRS.flatMap((p) => [p.a, p.b].flatMap((s) => [s.word, s.label, s.base ?? s.word]).concat(p.others)));
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        for (const f of fillers(2, rng(seed))) for (const w of words) expect(new RegExp(`\\b${w}\\b`, 'i').test(f), `${f} / ${w}`).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('generated/states: in the build', () => {
  it('leaves every other generator byte for byte as it was, and keeps each group in one split', () => {
    const others = Object.fromEntries(Object.keys(GENERATED_PAIRS).filter((k) => k !== 'states').map((k) => [k, 150]));
    const without = generatedCases(others);
    const withStates = generatedCases({ ...others, states: 300 });
    expect(JSON.stringify(withStates.filter((p) => p.case.source !== 'generated/states'))).toBe(JSON.stringify(without));
    const splits = new Map<string, Set<string>>();
    for (const p of withStates) splits.set(p.case.pair!, (splits.get(p.case.pair!) ?? new Set()).add(p.split));
    expect([...splits.values()].every((s) => s.size === 1)).toBe(true);
    expect(JSON.stringify(generatedCases({ states: 50 }))).toBe(JSON.stringify(generatedCases({ states: 50 })));
  });
});

/** The cases of a source by pair group. */
function groups(cases: readonly DataCase[]): [DataCase, DataCase][] {
  const by = new Map<string, DataCase[]>();
  for (const c of cases) by.set(c.pair!, [...(by.get(c.pair!) ?? []), c]);
  return [...by.values()].map((g) => g as [DataCase, DataCase]);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Tails of the lexicon's subjects ("today", "for the interview"), which questions repeat after the word. */
const TAILS = [...new Set(STATE_PAIRS.flatMap((p) => p.subjects).filter((s) => s.includes('>')).map((s) => s.split('>')[1]!))];
const TAIL = `( (${TAILS.map(escape).join('|')}))?`;

/** Non-`did` sides, longest word first, each with the direct question that asks its word. */
const ASKED = STATE_PAIRS.flatMap((p) => [{ s: p.a, side: 'a' as const }, { s: p.b, side: 'b' as const }])
  .filter((x) => x.s.form !== 'did')
  .sort((x, y) => y.s.word.length - x.s.word.length)
  .map(({ s, side }) => ({ word: s.word, side, re: new RegExp(`^(Is|Are|Was|Were|Has|Have) .+ ${escape(s.word)}${TAIL}\\?$`) }));

/** The lexicon word a direct question "Is/Was/Has ... (been) W?" asks. */
function askedWord(q: string): { word: string; side: 'a' | 'b' } | null {
  return ASKED.find((x) => x.re.test(q)) ?? null;
}

const BE = '(?:is|are|was|were|been)';
/** Per word: how a state affirms it, negates it, and for each pair that has it, states or negates the opposite. */
const READ = new Map(
  ASKED.map(({ word }) => {
    const w = escape(word);
    const opposites = STATE_PAIRS.flatMap((p) =>
      ([[p.a, p.b], [p.b, p.a]] as const)
        .filter(([x]) => x.word === word)
        .map(([, y]) => ({
          complementary: p.complementary,
          negated: new RegExp(y.form === 'did' ? `\\bdid not ${escape(y.base!)}\\b` : `\\bnot (?:been )?${escape(y.word)}\\b`),
          stated: new RegExp(y.form === 'did' ? `\\b${escape(y.word)}\\b` : `\\b${BE} ${escape(y.word)}\\b`),
        })),
    );
    return [word, { not: new RegExp(`\\bnot (?:been )?${w}\\b`), is: new RegExp(`\\b${BE} ${w}\\b`), opposites }];
  }),
);

/** The gold a direct question should get from the state's own words, or undefined when this check does not read it. */
function oracle(state: unknown, q: string): boolean | undefined {
  const asked = askedWord(q);
  if (asked === null) return undefined;
  if (typeof state !== 'string') return (state as JsonObject).status === asked.word;
  const read = READ.get(asked.word)!;
  if (read.not.test(state)) return false;
  if (read.is.test(state)) return true;
  // The state names the opposite word of a pair that has the asked word, or negates it.
  for (const o of read.opposites) {
    if (o.negated.test(state)) {
      if (o.complementary) return true;
      continue;
    }
    if (o.stated.test(state)) return false;
  }
  return undefined;
}
