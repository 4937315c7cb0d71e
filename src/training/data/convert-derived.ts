/**
 * Tasks derived from the labels of public sets already converted elsewhere, as sources of their
 * own (`polarity/<set>`, `similarity/<set>`), so that adding them changes none of the other
 * sources' cases: each has its own random stream and case ids, and uses its set's own split of
 * the same texts (a text held out in one source is held out in all of them).
 *
 * - Polarity: yes/no questions on whether a text is positive (or negative), the commonest
 *   sentiment question users ask, from EmoBank valence ratings clearly off neutral, GoEmotions
 *   rows of one clearly positive or negative emotion, and Poem Sentiment's positive and negative
 *   lines. The sets' own questions are rubrics and multi-way choices; none asked this.
 * - Similarity: a score of how alike in meaning two named fields of a record are, from SNLI
 *   pairs, read weakly: a hypothesis that follows from its premise is close to it, a neutral one
 *   shares the scene but adds facts, a contradiction shares the scene but changes a detail, and a
 *   premise of another row is about something else. Coarse labels, but they order the levels the
 *   way similarity orders them; without such cases the trained reader learned to ignore the
 *   fields' likeness, which the heads read.
 * @module
 */
import type { NoulQuestion, ScoreQuestion } from '../../types.js';
import type { Placed, Row } from './types.js';
import { makeCase, MAX_STATE_CHARS, placed, type Item } from './states.js';
import { between, normalizeText, pick, publicSplitter, randomFor, tidy, type Random } from './util.js';

/** What a polarity question asks about: the text as a whole, in one of several wordings. */
const SUBJECT = ['this text', 'the text', 'this message', 'the writer', 'this passage', 'this review', 'the author', 'this sentence'];

/** The words a wording uses for one polarity: the plain adjective, its tone word, a casual word. */
interface PolarityWords {
  plain: string;
  tone: string;
  casual: string;
}
const POSITIVE_WORDS: PolarityWords = { plain: 'positive', tone: 'favourable', casual: 'upbeat' };
const NEGATIVE_WORDS: PolarityWords = { plain: 'negative', tone: 'unfavourable', casual: 'critical or unhappy' };
/** Wordings of "is `s` of this polarity?", asked of either polarity. */
const POLARITY_Q: readonly ((s: string, w: PolarityWords) => string)[] = [
  (s, w) => `Is the sentiment of ${s} ${w.plain}?`,
  (s, w) => `Is ${s} ${w.plain}?`,
  (s, w) => `Does ${s} express a ${w.plain} feeling?`,
  (s, w) => `Is the tone of ${s} ${w.tone}?`,
  (s, w) => `Answer yes if ${s} sounds ${w.plain}.`,
  (s, w) => `Is ${s} ${w.casual}?`,
  (_s, w) => `${w.plain[0]!.toUpperCase()}${w.plain.slice(1)} sentiment?`,
  (s, w) => `Would you call the mood of ${s} ${w.plain}?`,
];
const CRITERIA: readonly [string, string][] = [
  ['positive', 'negative'],
  ['The text is positive', 'The text is negative'],
  ['favourable', 'unfavourable'],
  ['happy, pleased or approving', 'unhappy, annoyed or disapproving'],
];

/** One polarity question about a text whose polarity is `positive`. */
function polarityItem(positive: boolean, random: Random): Item {
  const subject = pick(SUBJECT, random);
  const style = random();
  if (style < 0.2) {
    // Criteria: yes and no spelled out, sometimes in the reverse order.
    const [pos, neg] = pick(CRITERIA, random);
    const flip = random() < 0.5;
    const question: NoulQuestion = { type: 'noul', instructions: `What is the sentiment of ${subject}?`, criteria: { true: flip ? neg : pos, false: flip ? pos : neg } };
    return { question, gold: flip ? !positive : positive };
  }
  const askPositive = style < 0.6;
  const instructions = pick(POLARITY_Q, random)(subject, askPositive ? POSITIVE_WORDS : NEGATIVE_WORDS);
  return { question: { type: 'noul', instructions }, gold: askPositive ? positive : !positive };
}

/** Polarity cases of `set` from rows with a clear polarity (`polarityOf` gives null otherwise). */
function polarityCases(set: string, rows: readonly Row[], polarityOf: (r: Row) => boolean | null, share = 1): Placed[] {
  const source = `polarity/${set}`;
  const random = randomFor(source);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const positive = polarityOf(r);
    const text = tidy(String(r.text));
    if (positive === null || text.length < 10 || text.length > MAX_STATE_CHARS) continue;
    if (random() >= share) continue;
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(source, String(r.id), text, [polarityItem(positive, random)])));
  }
  return out;
}

/** EmoBank: valence at most 2.4 is negative, at least 3.6 positive (ratings 1-5; most lie near 3). */
export const emobankPolarity = (rows: readonly Row[]) =>
  polarityCases('emobank', rows, (r) => (Number(r.valence) <= 2.4 ? false : Number(r.valence) >= 3.6 ? true : null));

const POSITIVE_EMOTIONS = new Set('admiration amusement approval caring excitement gratitude joy love optimism pride relief'.split(' '));
const NEGATIVE_EMOTIONS = new Set('anger annoyance disappointment disapproval disgust embarrassment fear grief nervousness remorse sadness'.split(' '));

/** GoEmotions: rows of one emotion that is clearly positive or negative; a third of them (the set is large). */
export const goemotionsPolarity = (rows: readonly Row[]) =>
  polarityCases(
    'goemotions',
    rows,
    (r) => {
      const labels = r.labels as string[];
      if (labels.length !== 1) return null;
      return POSITIVE_EMOTIONS.has(labels[0]!) ? true : NEGATIVE_EMOTIONS.has(labels[0]!) ? false : null;
    },
    1 / 3,
  );

/** Poem Sentiment: its positive and negative lines. */
export const poemPolarity = (rows: readonly Row[]) =>
  polarityCases('poem_sentiment', rows, (r) => (r.label === 'positive' ? true : r.label === 'negative' ? false : null));

/** Names of the two fields of a pair record. */
const FIELD_PAIRS: readonly [string, string][] = [
  ['sentence_a', 'sentence_b'],
  ['first', 'second'],
  ['text_1', 'text_2'],
  ['a', 'b'],
  ['original', 'candidate'],
  ['left', 'right'],
];
const SIMILARITY_Q: readonly ((a: string, b: string) => string)[] = [
  (a, b) => `How similar in meaning are \`${a}\` and \`${b}\`?`,
  (a, b) => `How close is \`${b}\` to \`${a}\` in meaning?`,
  (a, b) => `Rate how much \`${a}\` and \`${b}\` mean the same thing.`,
  (a, b) => `Do \`${a}\` and \`${b}\` say the same?`,
  (a, b) => `Score the semantic similarity of \`${a}\` and \`${b}\`.`,
  (a, b) => `How equivalent are the two sentences \`${a}\` and \`${b}\`?`,
];
/** Rubrics from unrelated to equivalent. */
const SIMILARITY_LEVELS: Record<number, readonly (readonly string[])[]> = {
  3: [['unrelated', 'related', 'equivalent'], ['different', 'somewhat similar', 'the same meaning']],
  4: [['unrelated', 'same topic', 'mostly the same', 'identical in meaning'], ['no overlap', 'some overlap', 'large overlap', 'same meaning']],
  5: [['completely different', 'same topic only', 'share some details', 'mostly equivalent', 'fully equivalent']],
  6: [['nothing in common', 'same topic, different meaning', 'share a few details', 'roughly equivalent, a key fact differs', 'mostly equivalent, minor details differ', 'exactly the same meaning']],
};
/** Where each kind of pair lies on a scale from 0 (unrelated) to 1 (equivalent). */
const LIKENESS = { other: 0, contradiction: 0.35, neutral: 0.5, entailment: 0.8 } as const;

/** SNLI pairs as similarity scores: three per premise group at most, plus one pair across rows. */
export function snliSimilarity(rows: readonly Row[]): Placed[] {
  const set = 'esnli_snli_devtest';
  const source = `similarity/${set}`;
  const random = randomFor(source);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  const usable = rows.filter((r) => r.label === 'entailment' || r.label === 'neutral' || r.label === 'contradiction');
  usable.forEach((r, i) => {
    // One row in five, so that the set does not outweigh the others.
    if (random() >= 0.2) return;
    const premise = tidy(String(r.premise));
    const key = normalizeText(premise);
    const s = split(String(r.split), key);
    // A premise of another row of the same split (the next one with a different premise).
    let kind: keyof typeof LIKENESS = r.label as keyof typeof LIKENESS;
    let other = tidy(String(r.hypothesis));
    if (random() < 0.2) {
      const far = usable[(i + between(50, 500, random)) % usable.length]!;
      if (normalizeText(String(far.premise)) === key || split(String(far.split), normalizeText(String(far.premise))) !== s) return;
      kind = 'other';
      other = tidy(String(far.premise));
    }
    const k = between(3, 6, random);
    const words = pick(SIMILARITY_LEVELS[k]!, random);
    const level = Math.round(LIKENESS[kind] * (k - 1));
    const [fa, fb] = pick(FIELD_PAIRS, random);
    const swap = random() < 0.5;
    const state = { [fa]: swap ? other : premise, [fb]: swap ? premise : other };
    const reversed = random() < 0.2;
    const question: ScoreQuestion = { type: 'score', instructions: pick(SIMILARITY_Q, random)(fa, fb), criteria: reversed ? [...words].reverse() : [...words] };
    out.push(placed(s, makeCase(source, String(r.id), state, [{ question, gold: reversed ? k - 1 - level : level }])));
  });
  return out;
}
