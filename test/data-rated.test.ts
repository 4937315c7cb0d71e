/**
 * Ratings derived from emotion labels (convert-rated.ts): three-level sentiment and intensity
 * rubrics whose gold level is the one the row's label means, in either listing order, with the
 * set's split of each text, leaving the set's other sources as they were.
 */
import { describe, expect, it } from 'vitest';
import type { ScoreQuestion } from '../src/types.js';
import { caseProblem } from '../src/training/data/check.js';
import { goemotionsRatings, INTENSITIES, poemRatings, SENTIMENT_LEVELS } from '../src/training/data/convert-rated.js';
import { goemotions, poemSentiment } from '../src/training/data/convert-intents.js';
import { goemotionsPolarity, poemPolarity } from '../src/training/data/convert-derived.js';
import { CONVERTERS } from '../src/training/data/build.js';
import type { Placed, Row } from '../src/training/data/types.js';
import { normalizeText, publicSplitter } from '../src/training/data/util.js';

const LABELS = ['joy', 'anger', 'annoyance', 'sadness', 'disappointment', 'grief', 'fear', 'nervousness', 'neutral', 'approval', 'love', 'curiosity', 'surprise'];
const goRows: Row[] = Array.from({ length: 1200 }, (_, i) => ({
  id: `g${i}`,
  split: i < 900 ? 'train' : i < 1050 ? 'validation' : 'test',
  text: `Comment number ${i} says something about its day.`,
  labels: i % 17 === 0 ? [LABELS[i % LABELS.length]!, 'joy'] : [LABELS[i % LABELS.length]!],
}));

/** The level words of a question lowest first, without "1 - " numbering, and its gold among them. */
function lowestFirst(q: ScoreQuestion, gold: number): { words: string[]; gold: number } {
  const words = (q.criteria as string[]).map((c) => c.replace(/^\d - /, ''));
  const knownLowFirst = [...SENTIMENT_LEVELS, ...INTENSITIES.flatMap((i) => i.levels)].some((l) => l[0] === words[0]) || words[0]!.startsWith('not ');
  return knownLowFirst ? { words, gold } : { words: [...words].reverse(), gold: words.length - 1 - gold };
}

const sentimentLevel = (label: string): number | null =>
  ['joy', 'approval', 'love'].includes(label) ? 2 : label === 'neutral' ? 1 : ['anger', 'annoyance', 'sadness', 'disappointment', 'grief', 'fear', 'nervousness'].includes(label) ? 0 : null;

function checkSplits(out: readonly Placed[], rows: readonly Row[], set: string, source: string): void {
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  for (const p of out) {
    const row = rows.find((r) => `${source}/${r.id}` === p.case.id)!;
    expect(p.split).toBe(split(String(row.split), normalizeText(String(row.text))));
  }
}

describe('rated/goemotions', () => {
  const out = goemotionsRatings(goRows);

  it("rates about 30% of the single-label rows, on three-level rubrics whose gold is the label's level", () => {
    expect(out.length).toBeGreaterThan(200);
    expect(out.length).toBeLessThan(420);
    let sentiment = 0;
    let intensity = 0;
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      expect(p.case.source).toBe('rated/goemotions');
      const row = goRows.find((r) => `rated/goemotions/${r.id}` === p.case.id)!;
      const labels = row.labels as string[];
      expect(labels.length).toBe(1);
      const label = labels[0]!;
      const q = p.case.questions.q1 as ScoreQuestion;
      expect(q.criteria.length).toBe(3);
      const { words, gold } = lowestFirst(q, Number(p.case.gold.q1));
      const asked = INTENSITIES.find((i) => String(q.instructions).includes(i.adjective));
      if (!asked) {
        sentiment++;
        expect(SENTIMENT_LEVELS.some((l) => l.join() === words.join())).toBe(true);
        expect(gold, `${label}: ${q.instructions}`).toBe(sentimentLevel(label));
        continue;
      }
      intensity++;
      const expected = asked.top.has(label) ? 2 : asked.middle.has(label) ? 1 : 0;
      expect(gold, `${label}: ${q.instructions} ${words.join('/')}`).toBe(expected);
      // Neither surprise nor curiosity says how angry or happy a writer is; neutral says nothing of how happy.
      expect(['curiosity', 'surprise']).not.toContain(label);
      if (asked.adjective === 'happy') expect(label).not.toBe('neutral');
      if (asked.adjective !== 'happy' && expected === 0) expect(['neutral', 'joy', 'approval', 'love']).toContain(label);
    }
    expect(sentiment).toBeGreaterThan(100);
    expect(intensity).toBeGreaterThan(50);
  });

  it('asks an intensity of its bottom texts (neutral, other polarity) about as often as of its middle or top ones, not ten times as often', () => {
    // GoEmotions' proportions, roughly: neutral and positive texts far outnumber angry ones.
    const mix = [...Array(40).fill('neutral'), ...Array(30).fill('admiration'), ...Array(8).fill('annoyance'), ...Array(6).fill('anger'), ...Array(16).fill('curiosity')];
    const rows: Row[] = Array.from({ length: 6000 }, (_, i) => ({ id: `r${i}`, split: 'train', text: `Comment ${i} about the game last night.`, labels: [mix[i % mix.length]!] }));
    const levels = [0, 0, 0];
    for (const p of goemotionsRatings(rows, 1)) {
      const q = p.case.questions.q1 as ScoreQuestion;
      if (!String(q.instructions).includes('angry')) continue;
      levels[lowestFirst(q, Number(p.case.gold.q1)).gold]!++;
    }
    const asked = levels[0]! + levels[1]! + levels[2]!;
    expect(levels[1]! + levels[2]!).toBeGreaterThan(400);
    expect(levels[0]! / asked).toBeGreaterThan(0.15);
    expect(levels[0]! / asked).toBeLessThan(0.5);
  });

  it('lists some rubrics highest first, with the gold following its level', () => {
    const reversed = out.filter((p) => {
      const q = p.case.questions.q1 as ScoreQuestion;
      return lowestFirst(q, 0).words[0] !== (q.criteria as string[])[0]!.replace(/^\d - /, '');
    });
    expect(reversed.length).toBeGreaterThan(out.length * 0.1);
    expect(reversed.length).toBeLessThan(out.length * 0.3);
  });

  it("keeps the set's split of each text, is deterministic and leaves the set's other sources as they were", () => {
    checkSplits(out, goRows, 'goemotions', 'rated/goemotions');
    expect(JSON.stringify(goemotionsRatings(goRows))).toBe(JSON.stringify(out));
    const all = CONVERTERS.goemotions!(goRows);
    expect(JSON.stringify(all.filter((p) => p.case.source === 'goemotions'))).toBe(JSON.stringify(goemotions(goRows)));
    expect(JSON.stringify(all.filter((p) => p.case.source === 'polarity/goemotions'))).toBe(JSON.stringify(goemotionsPolarity(goRows)));
    expect(JSON.stringify(all.filter((p) => p.case.source === 'rated/goemotions'))).toBe(JSON.stringify(out));
  });
});

describe('rated/poem_sentiment', () => {
  const poemLabels = ['positive', 'negative', 'no_impact', 'mixed'];
  const rows: Row[] = Array.from({ length: 200 }, (_, i) => ({ id: `p${i}`, split: i < 150 ? 'train' : 'test', text: `a line of verse, number ${i},`, label: poemLabels[i % 4] }));

  it('rates positive, negative and no-impact lines (bottom, top, middle), mixed ones never', () => {
    const out = poemRatings(rows);
    expect(out.length).toBe(150);
    for (const p of out) {
      expect(caseProblem(p.case), p.case.id).toBeNull();
      const row = rows.find((r) => `rated/poem_sentiment/${r.id}` === p.case.id)!;
      const { gold } = lowestFirst(p.case.questions.q1 as ScoreQuestion, Number(p.case.gold.q1));
      expect(gold).toBe({ negative: 0, no_impact: 1, positive: 2 }[String(row.label)]);
    }
    checkSplits(out, rows, 'poem_sentiment', 'rated/poem_sentiment');
    const all = CONVERTERS.poem_sentiment!(rows);
    expect(JSON.stringify(all.filter((p) => p.case.source === 'poem_sentiment'))).toBe(JSON.stringify(poemSentiment(rows)));
    expect(JSON.stringify(all.filter((p) => p.case.source === 'polarity/poem_sentiment'))).toBe(JSON.stringify(poemPolarity(rows)));
  });
});
