/**
 * Intent and emotion sets to choice cases (and, for emotions, some noul questions): CLINC150
 * (its out-of-scope rows answer an out-of-scope option), BANKING77, HWU64 (plus its scenario
 * as a topic question; some rows are asked among other scenarios' intents only, where the
 * out-of-scope option is gold), SNIPS, Poem Sentiment and GoEmotions (single-label rows).
 * @module
 */
import type { Placed, Row } from './types.js';
import { CHOICE_INSTRUCTIONS, EMOTION_NOUL } from './phrasings.js';
import { labelWords, optionSet } from './options.js';
import { makeCase, placed, type Item } from './states.js';
import { normalizeText, pick, publicSplitter, randomFor, tidy } from './util.js';

function intentSet(set: string, rows: readonly Row[], opts: { oos?: string; scenarios?: boolean } = {}): Placed[] {
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const labels = [...new Set(rows.map((r) => String(r.label)).filter((l) => l !== opts.oos))].sort();
  const scenarioOf = new Map(rows.map((r) => [String(r.label), String(r.scenario)]));
  const scenarios = [...new Set(scenarioOf.values())].sort();
  const out: Placed[] = [];
  for (const r of rows) {
    const text = tidy(String(r.text));
    if (text === '') continue;
    const label = String(r.label);
    const items: Item[] = [];
    const instructions = pick(CHOICE_INSTRUCTIONS.intent, random);
    if (label === opts.oos) {
      const { question, gold } = optionSet({ gold: label, labels, none: true }, instructions, random);
      items.push({ question, gold });
    } else if (opts.scenarios && random() < 0.08) {
      // Options from other scenarios only: no listed intent applies by construction.
      const exclude = new Set(labels.filter((l) => scenarioOf.get(l) === scenarioOf.get(label)));
      const { question, gold } = optionSet({ gold: label, labels, exclude, none: true }, instructions, random);
      items.push({ question, gold });
    } else {
      // Labels whose words occur in the text are always offered: the gold is then not the only
      // option named in the state (a shortcut the report measures).
      const padded = ` ${normalizeText(text)} `;
      const prefer = labels.filter((l) => l !== label && padded.includes(` ${normalizeText(labelWords(l))} `));
      const { question, gold } = optionSet({ gold: label, labels, prefer }, instructions, random);
      items.push({ question, gold });
    }
    if (opts.scenarios && random() < 0.3) {
      const scenario = String(r.scenario);
      const { question, gold } = optionSet({ gold: scenario, labels: scenarios, max: 18 }, pick(CHOICE_INSTRUCTIONS.topic, random), random);
      items.push({ question, gold });
    }
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(set, String(r.id), text, items)));
  }
  return out;
}

export const clinc150 = (rows: readonly Row[]) => intentSet('clinc150', rows, { oos: 'oos' });
export const banking77 = (rows: readonly Row[]) => intentSet('banking77', rows);
export const hwu64 = (rows: readonly Row[]) => intentSet('hwu64', rows, { scenarios: true });
export const snips = (rows: readonly Row[]) => intentSet('snips', rows);

const POEM_NAMES: Record<string, readonly string[]> = {
  negative: ['negative', 'sad or dark', 'Negative'],
  positive: ['positive', 'hopeful or happy', 'Positive'],
  no_impact: ['no impact', 'neutral', 'no emotional impact'],
  mixed: ['mixed', 'both positive and negative', 'Mixed'],
};

/** Poem Sentiment: a choice among its four labels (sometimes three: one distractor dropped). */
export function poemSentiment(rows: readonly Row[]): Placed[] {
  const set = 'poem_sentiment';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const text = tidy(String(r.text));
    const label = String(r.label);
    if (!POEM_NAMES[label] || text === '') continue;
    const style = Math.floor(random() * 3);
    const names = Object.fromEntries(Object.entries(POEM_NAMES).map(([k, v]) => [k, v[style]!]));
    const { question, gold } = optionSet({ gold: label, labels: Object.keys(POEM_NAMES), min: 3, max: 4, plain: true }, pick(CHOICE_INSTRUCTIONS.sentiment, random), random);
    // Rename the sampled labels to the chosen style (optionSet names them by label words).
    const criteria: Record<string, string | null> = {};
    let g = gold;
    for (const [name, desc] of Object.entries(question.criteria)) {
      const key = Object.keys(POEM_NAMES).find((k) => labelWords(k) === name.toLowerCase() || k === name);
      const renamed = key ? names[key]! : name;
      if (name === gold) g = renamed;
      criteria[renamed] = desc as string | null;
    }
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(set, String(r.id), text, [{ question: { ...question, criteria }, gold: g }])));
  }
  return out;
}

const POSITIVE = 'admiration amusement approval caring desire excitement gratitude joy love optimism pride relief'.split(' ');
const NEGATIVE = 'anger annoyance disappointment disapproval disgust embarrassment fear grief nervousness remorse sadness'.split(' ');
const AMBIGUOUS = 'confusion curiosity realization surprise'.split(' ');
const EMOTIONS = [...POSITIVE, ...NEGATIVE, ...AMBIGUOUS, 'neutral'];
const COARSE = (e: string) => (POSITIVE.includes(e) ? 'positive' : NEGATIVE.includes(e) ? 'negative' : 'neutral');
/** Near-synonyms never offered as distractors of each other (the raters confuse them). */
const CLOSE: readonly (readonly string[])[] = [
  ['anger', 'annoyance', 'disapproval', 'disgust'],
  ['joy', 'amusement', 'excitement', 'love', 'admiration', 'approval', 'gratitude', 'optimism', 'caring', 'pride', 'relief', 'desire'],
  ['sadness', 'grief', 'disappointment', 'remorse', 'embarrassment'],
  ['fear', 'nervousness'],
  ['confusion', 'curiosity', 'surprise', 'realization'],
];

/**
 * GoEmotions cases weigh half: a reading of 200 converted questions found its single rater
 * labels arguable about one time in five (sarcasm, "realization" for a birthday wish).
 */
export const GOEMOTIONS_WEIGHT = 0.5;

/** Neutral rows kept at most (the set is one third neutral). */
const MAX_NEUTRAL = 5000;

/** GoEmotions single-label rows: choice among emotions (or coarse sentiments), some noul. */
export function goemotions(rows: readonly Row[]): Placed[] {
  const set = 'goemotions';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  let neutral = 0;
  for (const r of rows) {
    const labels = r.labels as string[];
    if (labels.length !== 1) continue;
    const label = labels[0]!;
    if (!EMOTIONS.includes(label)) continue;
    if (label === 'neutral' && (++neutral > MAX_NEUTRAL)) continue;
    const text = tidy(String(r.text));
    if (text === '') continue;
    const items: Item[] = [];
    const kind = random();
    if (kind < 0.2 && !AMBIGUOUS.includes(label)) {
      const coarse = COARSE(label);
      const { question, gold } = optionSet({ gold: coarse, labels: ['positive', 'negative', 'neutral'], min: 3, max: 3, plain: true }, pick(CHOICE_INSTRUCTIONS.sentiment, random), random);
      items.push({ question, gold });
    } else if (kind < 0.35 && label !== 'neutral' && !AMBIGUOUS.includes(label)) {
      // Yes for the row's emotion, or no for an emotion of the opposite polarity.
      const opposite = POSITIVE.includes(label) ? NEGATIVE : POSITIVE;
      const yes = random() < 0.5;
      const e = yes ? label : pick(opposite, random);
      items.push({ question: { type: 'noul', instructions: pick(EMOTION_NOUL, random)(e) }, gold: yes });
    } else {
      const exclude = new Set(CLOSE.find((g) => g.includes(label))?.filter((e) => e !== label) ?? []);
      const { question, gold } = optionSet({ gold: label, labels: EMOTIONS, exclude, emotion: true, max: 20 }, pick(CHOICE_INSTRUCTIONS.emotion, random), random);
      items.push({ question, gold });
    }
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(set, String(r.id), text, items, { weight: GOEMOTIONS_WEIGHT })));
  }
  return out;
}
