/**
 * The plain-question regression test (issue 15): obvious questions a child gets right, asked of
 * the default model with the shipped weights. The goal is 95% right; the shipped model
 * (heads corrected by the reader) answers 87 of 100 (session 11; 82 in session 8, 80 in session 7), the late-interaction heads alone 57, so the
 * test holds the shipped count as a floor (a model that answers fewer fails) and prints the
 * failures against the goal. `node dist/bench/accuracy/plain.js --model ...` prints the same
 * questions for any model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/index.js';
import { answerPlainQuestions, fixtureProblems, formatPlain, judge, loadPlainQuestions, type PlainQuestion } from '../bench/accuracy/plain.js';

const items = loadPlainQuestions();
/** Issue 15's goal. */
const GOAL = 0.95;
/** What the shipped model answers right (bench/accuracy/results/session11/plain.txt). */
const SHIPPED_RIGHT = 87;

describe('plain questions: the fixture', () => {
  it('has enough questions, with the noul answers split between yes and no', () => {
    expect(items.length).toBeGreaterThanOrEqual(70);
    const noul = items.filter((i) => i.question.type === 'noul');
    const no = noul.filter((i) => i.expect === false).length;
    expect(no / noul.length).toBeGreaterThanOrEqual(0.45);
    expect(no / noul.length).toBeLessThanOrEqual(0.6);
    for (const t of ['choice', 'score'] as const) expect(items.filter((i) => i.question.type === t).length).toBeGreaterThanOrEqual(8);
  });

  it('covers every example of issue 15', () => {
    const asked = (state: unknown, q: RegExp) => items.some((i) => JSON.stringify(i.state) === JSON.stringify(state) && q.test(String(i.question.instructions)));
    expect(asked('The parcel arrived broken and late.', /unhappy/)).toBe(true);
    expect(asked('The parcel arrived broken and late.', /How upset/)).toBe(true);
    expect(asked('My package never arrived.', /delivery problem/)).toBe(true);
    expect(asked({ order: 42, status: 'lost' }, /order lost/)).toBe(true);
    expect(asked('I want a full refund.', /refund/)).toBe(true);
    expect(asked('It is raining heavily in London today.', /Is it raining/)).toBe(true);
    expect(asked('The meeting is moved to 3 pm.', /about a meeting/)).toBe(true);
    expect(asked('The dog plays in the garden.', /language/)).toBe(true);
    expect(items.some((i) => String(i.state).includes('money back immediately') && /refund/.test(String(i.question.instructions)))).toBe(true);
  });

  it('rejects an expected answer that does not fit its question', () => {
    const base: PlainQuestion = { id: 'x', source: 't', state: 's', question: { type: 'choice', criteria: { a: null, b: null } }, expect: 'a' };
    expect(fixtureProblems(base)).toEqual([]);
    expect(fixtureProblems({ ...base, expect: 'c' })).not.toEqual([]);
    expect(fixtureProblems({ ...base, question: { type: 'score', criteria: ['lo', 'hi'] }, expect: 2 })).not.toEqual([]);
    expect(fixtureProblems({ ...base, question: { type: 'noul' }, expect: 'yes' })).not.toEqual([]);
  });

  it('judges noul by the 0.5 threshold and choice by the single top option', () => {
    const noul: PlainQuestion = { id: 'n', source: 't', state: 's', question: { type: 'noul' }, expect: false };
    expect(judge(noul, { type: 'noul', noul: 0.49 }).right).toBe(true);
    expect(judge(noul, { type: 'noul', noul: 0.5 }).right).toBe(false);
    const choice: PlainQuestion = { id: 'c', source: 't', state: 's', question: { type: 'choice', criteria: { a: null, b: null } }, expect: ['a'] };
    expect(judge(choice, { type: 'choice', choice: 'a', probabilities: { a: 0.5, b: 0.5 }, confidence: 0 }).right).toBe(false);
    expect(judge(choice, { type: 'choice', choice: 'a', probabilities: { a: 0.6, b: 0.4 }, confidence: 0.2 }).right).toBe(true);
  });
});

describe('plain questions: the default model with the shipped weights', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
  });
  afterAll(async () => {
    await engine?.close();
  });

  it(`answers at least the shipped ${SHIPPED_RIGHT} right (goal: ${GOAL * 100}%)`, async () => {
    const { results } = await answerPlainQuestions(engine, items);
    const right = results.filter((r) => r.right).length;
    if (right < GOAL * results.length) process.stderr.write(`plain questions: ${right}/${results.length} right (goal ${Math.ceil(GOAL * results.length)}); failures:\n${formatPlain(results, { failuresOnly: true })}\n`);
    expect(right).toBeGreaterThanOrEqual(SHIPPED_RIGHT);
  }, 300_000);
});
