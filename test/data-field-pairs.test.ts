/**
 * The reader's field-comparison source (gen-field-pairs.ts): the heads' pair cases made from the
 * corpus's training-split texts only, a copy at the rubric's top and an unrelated text at its
 * bottom, split by case, deterministic.
 */
import { describe, expect, it } from 'vitest';
import type { ScoreQuestion } from '../src/types.js';
import { caseProblem } from '../src/training/data/check.js';
import { fieldPairCases } from '../src/training/data/gen-field-pairs.js';
import type { Placed } from '../src/training/data/types.js';

const sentence = (file: string, i: number) => `In ${file} the record number ${i} says the shipment ${i} was handled by the ${file} team today.`;
const corpus: Placed[] = ['cases-a.jsonl', 'cases-b.jsonl', 'cases-c.jsonl'].flatMap((file) =>
  Array.from({ length: 30 }, (_, i) => ({
    split: i < 24 ? ('train' as const) : ('test' as const),
    case: { id: `${file}-${i}`, source: `corpus/${file}`, state: sentence(file, i), questions: { q: { type: 'noul' as const, instructions: 'Is it handled?' } }, gold: { q: true } },
  })),
);

describe('pairs/fields', () => {
  const out = fieldPairCases(corpus, 400);

  it('uses training-split corpus texts only and puts a copy at the top, an unrelated text at the bottom', () => {
    expect(out.length).toBe(400);
    let same = 0;
    let different = 0;
    // Per rubric (its levels in any order): the level a copy gets and the level an unrelated text gets.
    const sameLevel = new Map<string, Set<string>>();
    const differentLevel = new Map<string, Set<string>>();
    const add = (m: Map<string, Set<string>>, k: string, v: string) => m.set(k, (m.get(k) ?? new Set()).add(v));
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      expect(p.case.source).toBe('pairs/fields');
      const state = p.case.state as Record<string, string>;
      const texts = Object.entries(state).filter(([k]) => k !== 'id').map(([, v]) => v);
      for (const t of texts) expect(t).not.toMatch(/number (2[4-9])\b/); // rows 24-29 are held out
      const q = p.case.questions.similarity as ScoreQuestion;
      const levels = q.criteria as string[];
      const gold = p.case.gold.similarity as number;
      const rubric = [...levels].sort().join('|');
      const [x, y] = texts as [string, string];
      const norm = (t: string) => t.toLowerCase().replace(/[.!?]+$/, '');
      const fileOf = (t: string) => t.split(' ')[1];
      if (norm(x) === norm(y)) {
        same++;
        expect([0, levels.length - 1]).toContain(gold);
        add(sameLevel, rubric, levels[gold]!);
      } else if (texts.every((t) => t.split('. ').length === 1) && fileOf(x) !== fileOf(y)) {
        different++;
        expect([0, levels.length - 1]).toContain(gold);
        add(differentLevel, rubric, levels[gold]!);
      }
    }
    for (const [rubric, levels] of sameLevel) {
      expect(levels.size, rubric).toBe(1);
      const other = differentLevel.get(rubric);
      if (other) {
        expect(other.size, rubric).toBe(1);
        expect([...other][0], rubric).not.toBe([...levels][0]);
      }
    }
    expect(same).toBeGreaterThan(80);
    expect(different).toBeGreaterThan(80);
  });

  it('splits by case about 80/10/10 and gives the same cases every time', () => {
    const train = out.filter((p) => p.split === 'train').length;
    expect(train).toBeGreaterThan(280);
    expect(train).toBeLessThan(360);
    expect(JSON.stringify(fieldPairCases(corpus, 400))).toBe(JSON.stringify(out));
  });
});
