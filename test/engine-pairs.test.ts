// Questions that compare two fields of the state (src/heads/fields.ts), on the shipped heads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type ChoiceAnswer, type Engine, type Questions, type ScoreAnswer } from '../src/index.js';

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
});
afterAll(() => engine.close());

const SENTENCE = 'The printer on the second floor has run out of toner again.';
const OTHER = 'Quarterly revenue in the European region grew by eight percent.';

// Wordings, rubric and field names that the generated training cases (src/training/pairs.ts) do not use.
const QUESTIONS: Questions = {
  alike: { type: 'score', instructions: 'How close in meaning are `message` and `forwarded`?', criteria: ['different', 'similar', 'identical'] },
  kind: {
    type: 'choice',
    instructions: 'What is `forwarded` compared with `message`?',
    criteria: { resend: 'the same message sent again', fresh: 'a message on another matter' },
  },
};

const score = (a: unknown) => (a as ScoreAnswer).score;

describe('questions comparing two state fields', () => {
  it('rate a copy of a field closer to it than an unrelated text', async () => {
    const copy = await engine.evaluate({ message: SENTENCE, forwarded: SENTENCE }, QUESTIONS);
    const unrelated = await engine.evaluate({ message: SENTENCE, forwarded: OTHER }, QUESTIONS);
    expect(score(copy.answers.alike) - score(unrelated.answers.alike)).toBeGreaterThan(0.5);
    const p = (r: typeof copy) => (r.answers.kind as ChoiceAnswer).probabilities.resend!;
    expect(p(copy) - p(unrelated)).toBeGreaterThan(0.2);
  });

  it('keep score mirroring exact: reversed levels give the reversed distribution', async () => {
    const state = { message: SENTENCE, forwarded: 'Toner for the second-floor printer is empty once more.' };
    const levels = ['different', 'somewhat related', 'similar', 'identical'];
    const ask = (criteria: string[]) => engine.evaluate(state, { q: { type: 'score', instructions: 'How similar are `message` and `forwarded`?', criteria } });
    const up = (await ask(levels)).answers.q as ScoreAnswer;
    const down = (await ask([...levels].reverse())).answers.q as ScoreAnswer;
    const pu = Object.values(up.probabilities);
    const pd = Object.values(down.probabilities).reverse();
    // Equal up to the order of the softmax's float sums.
    pu.forEach((p, i) => expect(p).toBeCloseTo(pd[i]!, 6));
  });
});
