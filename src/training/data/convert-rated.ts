/**
 * Ratings derived from emotion labels, as sources of their own (`rated/<set>`): score questions
 * that ask how positive a text is, or how angry, sad, afraid or happy its writer is, on short
 * rubrics (three levels, the commonest rubric users write) in many wordings.
 *
 * The score sources before these rate valence and arousal on EmoBank, whose sentences are mostly
 * news near neutral, and reading difficulty; none asked for a rating of a clearly positive or
 * negative text, so the trained reader put three-level sentiment and intensity rubrics in the
 * middle (or at the wrong end) for texts whose polarity its yes/no questions read right. GoEmotions'
 * taxonomy has milder and stronger emotions of one kind (annoyance and anger, nervousness and
 * fear, disappointment and sadness), which gives intensity levels from labels; neutral rows give
 * the middle of a sentiment rubric and the bottom of an intensity rubric.
 *
 * Like the other derived sources these have their own random streams and case ids and use the
 * set's own split of the same texts, so no other source changes.
 * @module
 */
import type { ScoreQuestion } from '../../types.js';
import type { Placed, Row } from './types.js';
import { makeCase, MAX_STATE_CHARS, placed, type Item } from './states.js';
import { normalizeText, pick, publicSplitter, randomFor, tidy, type Random } from './util.js';

/** Sentiment rubrics, lowest first: negative, neutral, positive. */
export const SENTIMENT_LEVELS: readonly (readonly [string, string, string])[] = [
  ['negative', 'neutral', 'positive'],
  ['bad', 'mixed or neutral', 'good'],
  ['poor', 'average', 'excellent'],
  ['unhappy', 'indifferent', 'happy'],
  ['dissatisfied', 'neither', 'satisfied'],
  ['1 star', '2 stars', '3 stars'],
  ['thumbs down', 'no opinion', 'thumbs up'],
];
const SENTIMENT_Q: readonly string[] = [
  'How positive is this text?',
  'Rate the sentiment of this message.',
  'How does the writer feel overall?',
  'Rate this comment.',
  'How satisfied does the writer sound?',
  'What rating fits the tone of this text?',
  'Score the sentiment.',
  'How favourable is this?',
];

/** An emotion asked about: the words for it and which labels put a text at its middle or top. */
export interface Intensity {
  adjective: string;
  /** Rubrics of words of their own, lowest first (besides "not / somewhat / very <adjective>"). */
  levels: readonly (readonly [string, string, string])[];
  top: ReadonlySet<string>;
  middle: ReadonlySet<string>;
  /** Labels that put a text at the bottom (besides the other polarity's emotions). */
  bottom: ReadonlySet<string>;
}
const set = (words: string) => new Set(words.split(' '));
const POSITIVE = set('admiration amusement approval caring excitement gratitude joy love optimism pride relief');
const NEGATIVE = set('anger annoyance disappointment disapproval disgust embarrassment fear grief nervousness remorse sadness');

export const INTENSITIES: readonly Intensity[] = [
  { adjective: 'angry', levels: [['calm', 'irritated', 'furious']], top: set('anger'), middle: set('annoyance'), bottom: set('neutral') },
  { adjective: 'sad', levels: [['cheerful', 'a bit down', 'heartbroken']], top: set('grief sadness'), middle: set('disappointment'), bottom: set('neutral') },
  { adjective: 'afraid', levels: [['relaxed', 'uneasy', 'terrified']], top: set('fear'), middle: set('nervousness'), bottom: set('neutral') },
  // A neutral text says nothing of how happy its writer is: asked only of texts with an emotion.
  { adjective: 'happy', levels: [['miserable', 'content', 'delighted']], top: set('joy excitement love'), middle: set('approval optimism relief'), bottom: new Set() },
];
const INTENSITY_Q: readonly ((adjective: string) => string)[] = [
  (a) => `How ${a} is the writer?`,
  (a) => `How ${a} does this message sound?`,
  (a) => `Rate how ${a} the author is.`,
  (a) => `How ${a} is the person who wrote this?`,
];

/** The level (0-2) of a text with `label` on an intensity, or null when the label does not say. */
function intensityLevel(intensity: Intensity, label: string): number | null {
  if (intensity.top.has(label)) return 2;
  if (intensity.middle.has(label)) return 1;
  if (intensity.bottom.has(label)) return 0;
  // The other polarity's emotions: a joyful text is not angry, an angry one not happy.
  const positiveEmotion = intensity.adjective === 'happy';
  return (positiveEmotion ? NEGATIVE : POSITIVE).has(label) ? 0 : null;
}

/** A three-level rubric with gold `level`: words, "1 - words", or listed highest first. */
function rubric(words: readonly string[], level: number, instructions: string, random: Random): Item {
  const style = random();
  const labelled = style < 0.15 ? words.map((w, i) => `${i + 1} - ${w}`) : [...words];
  const reversed = style > 0.8;
  const question: ScoreQuestion = { type: 'score', instructions, criteria: reversed ? [...labelled].reverse() : labelled };
  return { question, gold: reversed ? words.length - 1 - level : level };
}

/** A sentiment rating of a text of polarity `polarity` (-1, 0 or 1). */
function sentimentItem(polarity: number, random: Random): Item {
  return rubric(pick(SENTIMENT_LEVELS, random), polarity + 1, pick(SENTIMENT_Q, random), random);
}

/** An intensity rating of a text with `label` on `intensity` (whose level for it is known). */
function intensityItem(intensity: Intensity, label: string, random: Random): Item {
  const a = intensity.adjective;
  const words = random() < 0.5 ? [`not ${a}`, `somewhat ${a}`, `very ${a}`] : pick(intensity.levels, random);
  return rubric(words, intensityLevel(intensity, label)!, pick(INTENSITY_Q, random)(a), random);
}

/**
 * Share of the texts at an intensity's bottom (neutral or of the other polarity) asked about
 * it. Such texts outnumber an emotion's own about ten to one; asked as often, "not angry" was
 * the answer to most anger questions and a first run learnt that prior (a furious customer
 * rated "not angry"). At this share the bottom level is about a third of each intensity's golds.
 */
const BOTTOM_SHARE = 0.12;

/**
 * GoEmotions rows of one label (`share` of them): a text of an emotion with intensity levels is
 * asked that intensity (60%) or its sentiment; any other text its sentiment, or (BOTTOM_SHARE)
 * an intensity it lies at the bottom of.
 */
export function goemotionsRatings(rows: readonly Row[], share = 0.3): Placed[] {
  const name = 'goemotions';
  const source = `rated/${name}`;
  const random = randomFor(source);
  const split = publicSplitter(name, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const labels = r.labels as string[];
    const text = tidy(String(r.text));
    if (random() >= share || labels.length !== 1 || text.length < 10 || text.length > MAX_STATE_CHARS) continue;
    const label = labels[0]!;
    const polarity = POSITIVE.has(label) ? 1 : NEGATIVE.has(label) ? -1 : label === 'neutral' ? 0 : null;
    const own = INTENSITIES.filter((i) => i.top.has(label) || i.middle.has(label));
    const bottom = INTENSITIES.filter((i) => intensityLevel(i, label) === 0);
    const roll = random();
    const item =
      own.length > 0 && roll < 0.6
        ? intensityItem(pick(own, random), label, random)
        : own.length === 0 && bottom.length > 0 && roll < BOTTOM_SHARE
          ? intensityItem(pick(bottom, random), label, random)
          : polarity === null
            ? null
            : sentimentItem(polarity, random);
    if (item) out.push(placed(split(String(r.split), normalizeText(text)), makeCase(source, String(r.id), text, [item])));
  }
  return out;
}

/** Poem Sentiment lines: positive, negative and no-impact lines as sentiment ratings (mixed ones left out). */
export function poemRatings(rows: readonly Row[]): Placed[] {
  const name = 'poem_sentiment';
  const source = `rated/${name}`;
  const random = randomFor(source);
  const split = publicSplitter(name, rows.map((r) => String(r.split)));
  const POLARITY: Record<string, number> = { negative: -1, no_impact: 0, positive: 1 };
  const out: Placed[] = [];
  for (const r of rows) {
    const polarity = POLARITY[String(r.label)];
    const text = tidy(String(r.text));
    if (polarity === undefined || text.length < 10) continue;
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(source, String(r.id), text, [sentimentItem(polarity, random)])));
  }
  return out;
}
