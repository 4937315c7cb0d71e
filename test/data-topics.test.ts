/**
 * Topic questions with described options (convert-topics.ts): every option is a topic of the
 * set with a hand-written name and description, the gold is the row's genre or scenario, the
 * derived sources keep the set's split and leave the set's own cases alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChoiceQuestion } from '../src/types.js';
import { caseProblem } from '../src/training/data/check.js';
import { hwuTopics, HWU_SCENARIOS, mnliTopics, MNLI_GENRES, topicQuestion, type Topic } from '../src/training/data/convert-topics.js';
import { hwu64 } from '../src/training/data/convert-intents.js';
import { mnliQuestions } from '../src/training/data/convert-questions.js';
import { mnli } from '../src/training/data/convert-nli.js';
import { CONVERTERS } from '../src/training/data/build.js';
import type { Row } from '../src/training/data/types.js';
import { normalizeText, publicSplitter } from '../src/training/data/util.js';

/** The topic an option stands for, from its name or (under a letter) its description. */
function topicOf(topics: Readonly<Record<string, Topic>>, name: string, description: string | null): string[] {
  return Object.keys(topics).filter((t) => topics[t]!.names.includes(name) || (/^[A-Z]$/.test(name) && topics[t]!.descriptions.includes(description ?? '')));
}

describe('topicQuestion', () => {
  it('offers distinct topics with the gold among them, each named and described by its own words', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(HWU_SCENARIOS)), fc.integer(), (gold, seed) => {
        let s = seed >>> 0;
        const random = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
        const { question, gold: name } = topicQuestion(HWU_SCENARIOS, gold, 'What is this about?', random, 2, 8);
        const entries = Object.entries(question.criteria);
        expect(entries.length).toBeGreaterThanOrEqual(2);
        expect(entries.length).toBeLessThanOrEqual(8);
        const meant = entries.map(([n, d]) => topicOf(HWU_SCENARIOS, n, d as string | null));
        for (const [i, [, d]] of entries.entries()) {
          expect(meant[i]!.length, entries[i]![0]).toBeGreaterThanOrEqual(1);
          if (d !== null) expect(meant[i]!.some((t) => HWU_SCENARIOS[t]!.descriptions.includes(d as string))).toBe(true);
        }
        const goldAt = entries.findIndex(([n]) => n === name);
        expect(meant[goldAt]).toContain(gold);
        // Every other option stands for another topic.
        entries.forEach((_, i) => i !== goldAt && expect(meant[i]!.includes(gold) && meant[i]!.length === 1).toBe(false));
      }),
      { numRuns: 300 },
    );
  });
});

const genres = ['travel', 'government', 'telephone', 'facetoface', 'fiction', 'letters', 'nineeleven', 'slate', 'oup', 'verbatim'];
const mnliRows: Row[] = Array.from({ length: 200 }, (_, i) => ({
  id: `m${i}`,
  split: 'mnli',
  genre: genres[Math.floor(i / 2) % genres.length],
  premise: `Premise number ${Math.floor(i / 2)} is a sentence of more than eight words in all.`,
  hypothesis: i % 2 === 0 ? 'The sentence is long.' : 'The sentence is short.',
  label: i % 2 === 0 ? 'entailment' : 'contradiction',
}));

describe('topics/taxinli_mnli', () => {
  it('asks each premise once, its genre gold, speech genres as one topic, vague genres left out', () => {
    const out = mnliTopics(mnliRows);
    expect(out.length).toBe(80); // 100 premises, OUP and Verbatim (20) left out
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      expect(p.case.source).toBe('topics/taxinli_mnli');
      const row = mnliRows.find((r) => `topics/taxinli_mnli/${r.id}` === p.case.id)!;
      const genre = { telephone: 'conversation', facetoface: 'conversation' }[String(row.genre)] ?? String(row.genre);
      const q = p.case.questions.q1 as ChoiceQuestion;
      const gold = String(p.case.gold.q1);
      expect(topicOf(MNLI_GENRES, gold, q.criteria[gold] as string | null)).toContain(genre);
    }
  });

  it("keeps the set's split of each premise and leaves the set's other sources as they were", () => {
    const split = publicSplitter('taxinli_mnli', mnliRows.map((r) => String(r.split)));
    for (const p of mnliTopics(mnliRows)) {
      const row = mnliRows.find((r) => `topics/taxinli_mnli/${r.id}` === p.case.id)!;
      expect(p.split).toBe(split(String(row.split), normalizeText(String(row.premise))));
    }
    const all = CONVERTERS.taxinli_mnli!(mnliRows);
    expect(JSON.stringify(all.filter((p) => p.case.source === 'taxinli_mnli'))).toBe(JSON.stringify(mnli(mnliRows)));
    expect(JSON.stringify(all.filter((p) => p.case.source === 'questions/taxinli_mnli'))).toBe(JSON.stringify(mnliQuestions(mnliRows)));
  });
});

const scenarios = [...Object.keys(HWU_SCENARIOS), 'general'];
const hwuRows: Row[] = Array.from({ length: 400 }, (_, i) => {
  const scenario = scenarios[i % scenarios.length]!;
  return { id: `h${i}`, split: i < 300 ? 'train' : 'test', text: `request ${i} please`, scenario, label: `${scenario}_query` };
});

describe('topics/hwu64', () => {
  it("asks about half of the requests their scenario, never 'general', with the set's split", () => {
    const out = hwuTopics(hwuRows);
    expect(out.length).toBeGreaterThan(120);
    expect(out.length).toBeLessThan(260);
    const split = publicSplitter('hwu64', hwuRows.map((r) => String(r.split)));
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      const row = hwuRows.find((r) => `topics/hwu64/${r.id}` === p.case.id)!;
      expect(row.scenario).not.toBe('general');
      expect(p.split).toBe(split(String(row.split), normalizeText(String(row.text))));
      const q = p.case.questions.q1 as ChoiceQuestion;
      expect(topicOf(HWU_SCENARIOS, String(p.case.gold.q1), q.criteria[String(p.case.gold.q1)] as string | null)).toContain(row.scenario);
    }
    const all = CONVERTERS.hwu64!(hwuRows);
    expect(JSON.stringify(all.filter((p) => p.case.source === 'hwu64'))).toBe(JSON.stringify(hwu64(hwuRows)));
  });
});
