/**
 * The derived sources of `npm run data` (convert-derived.ts) on synthetic rows: polarity
 * questions agree with the rating or label whichever way they are asked, similarity levels
 * follow how related the pair is under any rubric order, each text keeps its set's split, and
 * deriving adds cases without changing the set's own.
 */
import { describe, expect, it } from 'vitest';
import type { NoulQuestion, ScoreQuestion } from '../src/types.js';
import { caseProblem } from '../src/training/data/check.js';
import { emobank } from '../src/training/data/convert-graded.js';
import { emobankPolarity, goemotionsPolarity, poemPolarity, snliSimilarity } from '../src/training/data/convert-derived.js';
import { CONVERTERS } from '../src/training/data/build.js';
import type { Placed, Row } from '../src/training/data/types.js';
import { normalizeText, publicSplitter } from '../src/training/data/util.js';

/** Whether a polarity question's yes means "positive" (asked as positive, or criteria with positive as yes). */
function yesMeansPositive(q: NoulQuestion): boolean {
  if (q.criteria) return /^(positive|The text is positive|favourable|happy)/.test(String(q.criteria.true));
  return !/negative|unfavourable|critical/i.test(String(q.instructions));
}

const emoRows: Row[] = Array.from({ length: 400 }, (_, i) => ({ id: `e${i}`, split: i % 5 === 0 ? 'test' : 'train', text: `A sentence that is long enough, number ${i}.`, valence: 1 + (i % 41) / 10, arousal: 3 }));

describe('polarity', () => {
  it('EmoBank: only ratings clearly off neutral, and the gold says the rating side whichever way it is asked', () => {
    const out = emobankPolarity(emoRows);
    expect(out.length).toBeGreaterThan(100);
    const asked = { positive: 0, negative: 0, criteria: 0 };
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      expect(p.case.source).toBe('polarity/emobank');
      const v = Number(emoRows.find((r) => `polarity/emobank/${r.id}` === p.case.id)!.valence);
      expect(v <= 2.4 || v >= 3.6).toBe(true);
      const q = p.case.questions.q1 as NoulQuestion;
      const yes = p.case.gold.q1 as boolean;
      expect(yes === yesMeansPositive(q)).toBe(v >= 3.6);
      if (q.criteria) asked.criteria++;
      else asked[yesMeansPositive(q) ? 'positive' : 'negative']++;
    }
    // Every way of asking is used, so "yes" is never the same as "positive".
    for (const n of Object.values(asked)) expect(n).toBeGreaterThan(10);
  });

  it('keeps the split its set gives the same text, and leaves the set\'s own cases as they were', () => {
    const split = publicSplitter('emobank', emoRows.map((r) => String(r.split)));
    for (const p of emobankPolarity(emoRows)) {
      const row = emoRows.find((r) => `polarity/emobank/${r.id}` === p.case.id)!;
      expect(p.split).toBe(split(String(row.split), normalizeText(String(row.text))));
    }
    const own = JSON.stringify(emobank(emoRows));
    const both = CONVERTERS.emobank!(emoRows);
    expect(JSON.stringify(both.filter((p) => p.case.source === 'emobank'))).toBe(own);
    expect(both.some((p) => p.case.source === 'polarity/emobank')).toBe(true);
  });

  it('GoEmotions and Poem Sentiment: only clearly positive or negative labels', () => {
    const go: Row[] = ['joy', 'anger', 'neutral', 'surprise', 'gratitude', 'sadness'].flatMap((e, k) =>
      Array.from({ length: 60 }, (_, i) => ({ id: `g${k}-${i}`, split: 'train', text: `Some comment about things ${k} ${i}`, labels: [e] })),
    );
    const out = goemotionsPolarity(go);
    expect(out.length).toBeGreaterThan(20);
    for (const p of out) {
      const label = (go.find((r) => `polarity/goemotions/${r.id}` === p.case.id)!.labels as string[])[0]!;
      expect(['joy', 'anger', 'gratitude', 'sadness']).toContain(label);
      const positive = label === 'joy' || label === 'gratitude';
      expect((p.case.gold.q1 as boolean) === yesMeansPositive(p.case.questions.q1 as NoulQuestion)).toBe(positive);
    }
    const poems: Row[] = ['positive', 'negative', 'no_impact', 'mixed'].map((label, i) => ({ id: `p${i}`, split: 'train', text: `a line of a poem, ${label}`, label }));
    expect(poemPolarity(poems).map((p) => p.case.id).sort()).toEqual(['polarity/poem_sentiment/p0', 'polarity/poem_sentiment/p1']);
  });
});

describe('similarity', () => {
  const labels = ['entailment', 'neutral', 'contradiction'] as const;
  const rows: Row[] = Array.from({ length: 3000 }, (_, i) => ({
    id: `s${i}`,
    split: 'train',
    premise: `Premise number ${Math.floor(i / 3)} shows a scene.`,
    hypothesis: `Hypothesis ${i} about it.`,
    label: labels[i % 3]!,
  }));

  it('levels rise from unrelated to contradiction, neutral and entailment, under any rubric order', () => {
    const out: Placed[] = snliSimilarity(rows);
    expect(out.length).toBeGreaterThan(300);
    // Mean position on a 0..1 scale per kind of pair.
    const sums = new Map<string, { s: number; n: number }>();
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      const q = p.case.questions.q1 as ScoreQuestion;
      const state = p.case.state as Record<string, string>;
      const fields = Object.keys(state);
      expect(fields).toHaveLength(2);
      // The instructions name both fields.
      for (const f of fields) expect(String(q.instructions)).toContain(`\`${f}\``);
      const k = q.criteria.length;
      const g = p.case.gold.q1 as number;
      // A reversed rubric starts with its top level.
      const top = /same|equivalent|identical/.test(String(q.criteria[0]));
      const position = (top ? k - 1 - g : g) / (k - 1);
      const row = rows.find((r) => `similarity/esnli_snli_devtest/${r.id}` === p.case.id)!;
      const texts = Object.values(state);
      const kind = texts.includes(String(row.hypothesis)) ? String(row.label) : 'other';
      const e = sums.get(kind) ?? { s: 0, n: 0 };
      sums.set(kind, { s: e.s + position, n: e.n + 1 });
    }
    const mean = (k: string) => sums.get(k)!.s / sums.get(k)!.n;
    expect(mean('other')).toBe(0);
    expect(mean('contradiction')).toBeLessThan(mean('neutral'));
    expect(mean('neutral')).toBeLessThan(mean('entailment'));
  });
});
