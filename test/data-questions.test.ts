/**
 * Direct yes/no questions from entailment rows (convert-questions.ts): the statement's own
 * auxiliary fronts the question, only plain "Subject AUX rest" statements are used, yes means
 * entailment and no contradiction, and the derived source leaves the set's own cases alone.
 */
import { describe, expect, it } from 'vitest';
import type { NoulQuestion } from '../src/types.js';
import { caseProblem } from '../src/training/data/check.js';
import { directQuestion, snliQuestions } from '../src/training/data/convert-questions.js';
import { snli } from '../src/training/data/convert-nli.js';
import { CONVERTERS } from '../src/training/data/build.js';
import type { Row } from '../src/training/data/types.js';
import { normalizeText, publicSplitter } from '../src/training/data/util.js';

describe('directQuestion', () => {
  it('fronts the auxiliary and lower-cases a common first word', () => {
    expect(directQuestion('A man is playing a guitar.')).toBe('Is a man playing a guitar?');
    expect(directQuestion('Two dogs were running in the park')).toBe('Were two dogs running in the park?');
    expect(directQuestion('There are people outside.')).toBe('Are there people outside?');
    expect(directQuestion('The flight has landed safely.')).toBe('Has the flight landed safely?');
    expect(directQuestion('The team will win the cup.')).toBe('Will the team win the cup?');
  });

  it('keeps a name capitalised where the premise writes it so', () => {
    expect(directQuestion('Maria is at home.', 'Yesterday Maria stayed at home.')).toBe('Is Maria at home?');
    expect(directQuestion('Doctors are performing surgery.', 'Two doctors operate.')).toBe('Are doctors performing surgery?');
  });

  it('leaves statements it cannot turn into a plain question', () => {
    for (const s of [
      'A man is not playing.', // negation
      "The dog isn't sleeping.",
      'Nobody is outside.',
      'A man plays a guitar.', // no auxiliary
      'The man has a dog.', // "have" as a verb, not an auxiliary
      'The man who is tall is running.', // clause subject
      'Is a man playing?', // already a question
      'Outside, a man is playing.', // comma in the subject
      'The very old and quite tall man from the city is walking.', // long subject
      'is running.', // no subject
      'I am sure he was there.',
    ])
      expect(directQuestion(s), s).toBeNull();
  });
});

const rows: Row[] = Array.from({ length: 120 }, (_, i) => {
  const premise = `A person number ${Math.floor(i / 3)} is walking a brown dog in the park.`;
  const label = ['entailment', 'contradiction', 'neutral'][i % 3]!;
  const hypothesis = ['A person is outside with a pet.', 'A person is sleeping at home.', 'A person is walking to work.'][i % 3]!;
  return { id: `r${i}`, split: i < 60 ? 'dev' : 'test', premise, hypothesis, label };
});

describe('questions/<set>', () => {
  it('asks entailed hypotheses as yes and contradicted ones as no, never neutral ones', () => {
    const out = snliQuestions(rows);
    expect(out.length).toBe(40);
    let yes = 0;
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      expect(p.case.source).toBe('questions/esnli_snli_devtest');
      for (const [k, q] of Object.entries(p.case.questions)) {
        const text = String((q as NoulQuestion).instructions);
        const gold = p.case.gold[k];
        expect(text).not.toMatch(/walking to work/);
        if (/outside with a pet/.test(text)) expect(gold).toBe(true);
        else {
          expect(text).toMatch(/sleeping at home/);
          expect(gold).toBe(false);
        }
        if (gold) yes++;
      }
    }
    expect(yes).toBe(40);
  });

  it("keeps the set's split of each premise and leaves the set's own cases as they were", () => {
    const split = publicSplitter('esnli_snli_devtest', rows.map((r) => String(r.split)));
    for (const p of snliQuestions(rows)) {
      const row = rows.find((r) => `questions/esnli_snli_devtest/${r.id}` === p.case.id)!;
      expect(p.split).toBe(split(String(row.split), normalizeText(String(row.premise))));
    }
    const both = CONVERTERS.esnli_snli_devtest!(rows);
    expect(JSON.stringify(both.filter((p) => p.case.source === 'esnli_snli_devtest'))).toBe(JSON.stringify(snli(rows)));
    expect(both.some((p) => p.case.source === 'questions/esnli_snli_devtest')).toBe(true);
  });
});
