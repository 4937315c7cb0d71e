/**
 * Generated training cases for questions that compare two fields of the state (the heads' pair
 * input, src/heads/fields.ts). The corpus has almost none, so they are made from its own texts
 * with labels that hold by construction:
 * - "same": a text and an exact copy of it, or a copy that differs only in letter case or final
 *   punctuation (the content is identical);
 * - "different": two texts taken from cases of different files (different domains), so they
 *   share no content;
 * - "half": the same text X joined to two unrelated texts, X + Y against X + Z, so that half of
 *   the content is shared. Only rubrics whose author marked a level as meaning exactly that are
 *   asked about these (choice is not: "the same thing?" has no certain answer there).
 * Each case asks one score question (a similarity rubric, levels in either order, the gold at
 * the rubric's "same", "half" or "different" level) and, for half of the "same" and "different"
 * cases, a two-option choice question, in several wordings, over varied field names, with an
 * unrelated third field now and then. No noul questions: the heads' pair term is for choice and
 * score only (late.ts). Only texts of training-split cases are used, so nothing of the held-out
 * splits leaks in.
 * @module
 */
import type { JsonObject, Question } from '../types.js';
import { rng, shuffled, type Case, type Gold } from './data.js';

/**
 * Similarity rubrics, lowest level first, in many styles (bare words, numbered, lettered,
 * sentences) so that the learned direction reads what a level says rather than one wording.
 * Gold is one of the two ends, or the level marked `half` (lowest-first index) for half-shared
 * texts; other middle levels are there as they are in real rubrics.
 */
const RUBRICS: readonly { levels: readonly string[]; half?: number }[] = [
  { levels: ['unrelated', 'the same'] },
  { levels: ['completely different', 'partly overlapping', 'identical in meaning'], half: 1 },
  { levels: ['no similarity', 'little similarity', 'moderate similarity', 'high similarity', 'equivalent'], half: 2 },
  { levels: ['different content', 'some shared details', 'mostly the same content', 'exactly the same content'] },
  { levels: ['nothing in common', 'loosely related', 'related', 'close', 'near duplicate', 'duplicate'] },
  { levels: ['they are about different things', 'they express the same information'] },
  { levels: ['0: no overlap at all', '1: a little overlap', '2: about half the content is shared', '3: nearly all content is shared', '4: the same content'], half: 2 },
  { levels: ['1 - distinct', '2 - somewhat similar', '3 - very similar', '4 - same meaning'] },
  { levels: ['low: the texts discuss unrelated matters', 'medium: the texts share some content and differ in the rest', 'high: the texts say the same thing'], half: 1 },
  { levels: ['not a match', 'partial match', 'full match'], half: 1 },
  { levels: ['distinct statements', 'paraphrases of each other'] },
  { levels: ['A - entirely different', 'B - slightly similar', 'C - quite similar', 'D - equal in content'] },
  { levels: ['mismatch', 'weak match', 'strong match', 'exact match'] },
  { levels: ['the second text has nothing to do with the first', 'the second text restates the first'] },
  { levels: ['very different', 'different', 'neutral', 'similar', 'very similar'] },
  { levels: ['no shared meaning', 'same meaning'] },
  { levels: ['1: unlike each other', '2: a few points in common', '3: alike in most respects', '4: alike in every respect'] },
  { levels: ['they contradict or ignore each other', 'one is a copy of the other'] },
  { levels: ['none of the content is shared', 'some of the content is shared', 'all of the content is shared'], half: 1 },
  { levels: ['disjoint', 'overlapping', 'identical'], half: 1 },
];

const SCORE_WORDINGS = [
  'How similar are `{a}` and `{b}`?',
  'Rate how closely `{b}` matches `{a}`.',
  'To what degree do `{a}` and `{b}` convey the same content?',
  'Compare `{a}` with `{b}`: how much do they overlap?',
  'How much do `{a}` and `{b}` have in common?',
  'Rate the similarity between `{a}` and `{b}`.',
  'How alike are `{b}` and `{a}`?',
];

const CHOICE_WORDINGS = ['How does `{b}` relate to `{a}`?', 'Which describes `{b}` compared with `{a}`?', 'What is `{b}` with respect to `{a}`?'];
/** Two-option sets: the option for "same" first. */
const CHOICE_OPTIONS: readonly [[string, string], [string, string]][] = [
  [['duplicate', 'it repeats the same content'], ['unrelated', 'it is about something else']],
  [['same', 'the same content in other words or as is'], ['different', 'different content']],
  [['match', 'says what the other says'], ['no_match', 'says something else']],
  [['copy', 'a copy'], ['other', 'another text altogether']],
];

const FIELD_NAMES: readonly [string, string][] = [
  ['text_1', 'text_2'],
  ['first', 'second'],
  ['original', 'rewrite'],
  ['old_note', 'new_note'],
  ['description', 'listing'],
  ['left', 'right'],
  ['a', 'b'],
  ['version_1', 'version_2'],
  ['source', 'copy'],
  ['entry_a', 'entry_b'],
  ['ticket', 'candidate_duplicate'],
];

const words = (t: string) => t.split(/\s+/).filter(Boolean).length;

/** Texts of 6 to 40 words from the cases' states: string fields, and sentences of string states. */
function sourceTexts(cases: readonly Case[]): { text: string; file: string }[] {
  const out: { text: string; file: string }[] = [];
  const keep = (text: string, file: string) => {
    const t = text.trim();
    if (words(t) >= 6 && words(t) <= 40 && !t.includes('`')) out.push({ text: t, file });
  };
  for (const c of cases) {
    if (typeof c.state === 'string') for (const s of c.state.split(/(?<=[.!?])\s+/)) keep(s, c.file);
    else if (!Array.isArray(c.state)) for (const v of Object.values(c.state)) if (typeof v === 'string') keep(v, c.file);
  }
  return out;
}

/** A copy with the same content: as is, lower-cased, or without its final punctuation. */
function sameContent(text: string, random: () => number): string {
  const r = random();
  if (r < 0.6) return text;
  if (r < 0.8) return text.toLowerCase();
  return text.replace(/[.!?]+$/, '');
}

const fill = (wording: string, a: string, b: string) => wording.replace('{a}', a).replace('{b}', b);

/** `count` generated cases from the texts of `cases` (seeded). */
export function pairCases(cases: readonly Case[], count: number, seed: number): Case[] {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const texts = shuffled(sourceTexts(cases), random);
  if (texts.length < 2) return [];
  const out: Case[] = [];
  const halfRubrics = RUBRICS.filter((r) => r.half !== undefined);
  /** A text from a file other than those of `avoid`. */
  const unrelated = (...avoid: string[]) => {
    for (;;) {
      const other = pick(texts);
      if (!avoid.includes(other.file)) return other;
    }
  };
  for (let i = 0; i < count; i++) {
    const first = texts[i % texts.length]!;
    const r = random();
    const kind = r < 0.35 ? 'same' : r < 0.7 ? 'different' : 'half';
    let firstText = first.text;
    let second: string;
    if (kind === 'same') second = sameContent(first.text, random);
    else if (kind === 'different') second = unrelated(first.file).text;
    else {
      const y = unrelated(first.file);
      const z = unrelated(first.file, y.file);
      firstText = random() < 0.5 ? `${first.text} ${y.text}` : `${y.text} ${first.text}`;
      second = random() < 0.5 ? `${first.text} ${z.text}` : `${z.text} ${first.text}`;
    }
    const same = kind === 'same';
    const [a, b] = pick(FIELD_NAMES);
    const fields: [string, string][] = shuffled([[a, firstText], [b, second]] as [string, string][], random);
    if (random() < 0.3) fields.splice(Math.floor(random() * 3), 0, ['id', `R-${1000 + i}`]);
    const state = Object.fromEntries(fields) as JsonObject;

    const rubric = pick(kind === 'half' ? halfRubrics : RUBRICS);
    const ascending = random() < 0.5;
    const levels = ascending ? [...rubric.levels] : [...rubric.levels].reverse();
    // Gold as a lowest-first index, then placed in the asked order.
    const low = kind === 'same' ? levels.length - 1 : kind === 'different' ? 0 : rubric.half!;
    const questions: Record<string, Question> = {
      similarity: { type: 'score', instructions: fill(pick(SCORE_WORDINGS), a, b), criteria: levels },
    };
    const gold: Record<string, Gold> = { similarity: ascending ? low : levels.length - 1 - low };
    if (kind !== 'half' && random() < 0.5) {
      const [yes, no] = pick(CHOICE_OPTIONS);
      const criteria = Object.fromEntries(random() < 0.5 ? [yes, no] : [no, yes]);
      questions.relation = { type: 'choice', instructions: fill(pick(CHOICE_WORDINGS), a, b), criteria };
      gold.relation = same ? yes[0] : no[0];
    }
    out.push({ id: `pair-${i}`, file: 'generated-pairs', state, questions, gold });
  }
  return out;
}
