/**
 * Graded sets to score cases: EmoBank valence and arousal (mean ratings on 1-5) as rubrics of
 * 3 to 7 levels, keeping only rows whose rating lies clearly inside a level (within 30% of a
 * level's spacing from its centre, or beyond an end level); CEFR-SP sentences where both raters
 * agree (six CEFR levels or three bands); OneStopEnglish articles cut into excerpts of whole
 * sentences (a reading level holds for any excerpt of the text). Level wordings are informative
 * ("very negative") or bare ("1".."k"); informative rubrics are sometimes listed highest first.
 * @module
 */
import type { ScoreQuestion } from '../../types.js';
import type { Placed, Row } from './types.js';
import { SCORE_INSTRUCTIONS } from './phrasings.js';
import { makeCase, MAX_STATE_CHARS, placed, type Item } from './states.js';
import { between, normalizeText, pick, publicSplitter, randomFor, sentences, tidy, type Random } from './util.js';

const VALENCE: Record<number, readonly string[]> = {
  3: ['negative', 'neutral', 'positive'],
  4: ['negative', 'somewhat negative', 'somewhat positive', 'positive'],
  5: ['very negative', 'negative', 'neutral', 'positive', 'very positive'],
  6: ['very negative', 'negative', 'slightly negative', 'slightly positive', 'positive', 'very positive'],
  7: ['very negative', 'negative', 'slightly negative', 'neutral', 'slightly positive', 'positive', 'very positive'],
};
const AROUSAL: Record<number, readonly string[]> = {
  3: ['calm', 'moderately stirred', 'excited'],
  4: ['very calm', 'calm', 'aroused', 'very aroused'],
  5: ['very calm', 'calm', 'moderate', 'excited', 'very excited'],
};

/**
 * The level of `v` on a scale of `k` levels centred evenly from `lo` to `hi`, or null when `v`
 * is not clearly inside one (near a boundary between two levels).
 */
export function levelOf(v: number, k: number, lo: number, hi: number, radius = 0.3): number | null {
  const step = (hi - lo) / (k - 1);
  if (v <= lo) return 0;
  if (v >= hi) return k - 1;
  const i = Math.round((v - lo) / step);
  return Math.abs(v - (lo + i * step)) <= radius * step ? i : null;
}

/** A rubric of `k` levels: informative words (maybe highest first) or bare numbers. */
function rubric(words: readonly string[], level: number, instructions: string, random: Random): { question: ScoreQuestion; gold: number } & Item {
  const k = words.length;
  const style = random();
  if (style < 0.25) {
    const from = random() < 0.5 ? 1 : 0;
    return { question: { type: 'score', instructions, criteria: words.map((_, i) => String(i + from)) }, gold: level };
  }
  const labelled = style < 0.4 ? words.map((w, i) => `${i + 1} - ${w}`) : [...words];
  if (style > 0.8) return { question: { type: 'score', instructions, criteria: [...labelled].reverse() }, gold: k - 1 - level };
  return { question: { type: 'score', instructions, criteria: labelled }, gold: level };
}

/** EmoBank: valence (3 to 7 levels) for most rows, arousal (3 to 5) for the rest. */
export function emobank(rows: readonly Row[]): Placed[] {
  const set = 'emobank';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const text = tidy(String(r.text));
    if (text.length < 15 || text.length > MAX_STATE_CHARS) continue;
    const items: Item[] = [];
    // Valence for every row, arousal for half of them, each only when clearly inside a level.
    for (const arousal of [false, true]) {
      if (arousal && random() < 0.5) continue;
      const v = Number(arousal ? r.arousal : r.valence);
      // Most rows are rated exactly neutral; keep a quarter of them so the middle does not dominate.
      if (Math.abs(v - 3) < 0.05 && random() < 0.75) continue;
      const k = arousal ? between(3, 5, random) : between(3, 7, random);
      const level = arousal ? levelOf(v, k, 2.4, 3.8) : levelOf(v, k, 2.0, 4.0);
      if (level === null) continue;
      const words = (arousal ? AROUSAL : VALENCE)[k]!;
      items.push(rubric(words, level, pick(SCORE_INSTRUCTIONS[arousal ? 'arousal' : 'valence'], random), random));
    }
    if (items.length === 0) continue;
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(set, String(r.id), text, items)));
  }
  return out;
}

const CEFR6 = [
  ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'],
  ['beginner (A1)', 'elementary (A2)', 'intermediate (B1)', 'upper intermediate (B2)', 'advanced (C1)', 'proficient (C2)'],
  ['very easy', 'easy', 'fairly easy', 'fairly difficult', 'difficult', 'very difficult'],
] as const;
const CEFR3 = [
  ['basic user (A1-A2)', 'independent user (B1-B2)', 'proficient user (C1-C2)'],
  ['easy', 'medium', 'hard'],
  ['beginner', 'intermediate', 'advanced'],
] as const;

/** CEFR-SP (Wiki-Auto part): sentences both raters put at the same level. */
export function cefr(rows: readonly Row[]): Placed[] {
  const set = 'cefr_sp_wikiauto';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    if (r.level_a !== r.level_b) continue;
    const level6 = Number(r.level_a) - 1;
    const text = tidy(String(r.text));
    if (level6 < 0 || level6 > 5 || text === '') continue;
    const six = random() < 0.6;
    const words = six ? pick(CEFR6, random) : pick(CEFR3, random);
    const { question, gold } = rubric(words, six ? level6 : Math.floor(level6 / 2), pick(SCORE_INSTRUCTIONS.difficulty, random), random);
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(set, String(r.id), text, [{ question, gold }])));
  }
  return out;
}

const OSE = [
  ['elementary', 'intermediate', 'advanced'],
  ['easy', 'medium', 'hard'],
  ['for beginners', 'for intermediate learners', 'for advanced learners'],
] as const;

/** Excerpts of whole sentences, each at most `max` characters, up to `limit` of them. */
export function excerpts(text: string, max: number, limit: number): string[] {
  const out: string[] = [];
  let cur = '';
  for (const s of sentences(text.replace(/\s*\n\s*/g, ' '))) {
    if (s.length > max) {
      cur = '';
      continue;
    }
    if (cur !== '' && cur.length + 1 + s.length > max) {
      out.push(cur);
      if (out.length >= limit) return out;
      cur = '';
    }
    cur = cur === '' ? s : `${cur} ${s}`;
  }
  if (cur.length > max / 3 && out.length < limit) out.push(cur);
  return out;
}

/** OneStopEnglish: up to three excerpts per article version, three levels. */
export function onestopenglish(rows: readonly Row[]): Placed[] {
  const set = 'onestopenglish';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  const LEVEL: Record<string, number> = { elementary: 0, intermediate: 1, advanced: 2 };
  for (const r of rows) {
    const level = LEVEL[String(r.id).split('-').pop() ?? ''] ?? (Number(r.level) - 1);
    if (!(level >= 0 && level <= 2)) continue;
    const s = split(String(r.split), String(r.article));
    excerpts(String(r.text), MAX_STATE_CHARS, 3).forEach((text, i) => {
      const { question, gold } = rubric(pick(OSE, random), level, pick(SCORE_INSTRUCTIONS.difficulty, random), random);
      out.push(placed(s, makeCase(set, `${r.id}-${i}`, tidy(text), [{ question, gold }])));
    });
  }
  return out;
}
