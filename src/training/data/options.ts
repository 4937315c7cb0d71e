/**
 * Option sets of converted choice questions: 2 to 40 options sampled from a set's labels, the
 * gold always among them at a random position, names in varied styles (the label, its words,
 * Title Case, or a number or letter with the label as the description), descriptions written
 * from the label now and then, and an out-of-scope option that is gold only when no listed
 * label applies.
 * @module
 */
import type { ChoiceQuestion, Content } from '../../types.js';
import { NONE_OPTIONS } from './phrasings.js';
import { between, pick, sample, shuffledBy, type Random } from './util.js';

/** Words of a label: `card_arrival` -> "card arrival", `AddToPlaylist` -> "add to playlist". */
export function labelWords(label: string): string {
  return label
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-]+/g, ' ')
    .toLowerCase()
    .trim();
}

const titleCase = (s: string) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase());

const DESCRIBE: readonly ((w: string) => string)[] = [
  (w) => `The message is about ${w}.`,
  (w) => `Requests concerning ${w}`,
  (w) => `Choose this for ${w}.`,
  (w) => `Anything related to ${w}`,
  (w) => `The user wants help with ${w}.`,
];

const DESCRIBE_EMOTION: readonly ((w: string) => string)[] = [
  (w) => `The writer feels ${w}.`,
  (w) => `Expresses ${w}`,
  (w) => `The main emotion is ${w}.`,
  (w) => `Choose this when the text conveys ${w}.`,
];

export interface OptionSpec {
  gold: string;
  /** Every label of the set (the gold included, out-of-scope excluded). */
  labels: readonly string[];
  /** Labels that must not appear as distractors (near-synonyms of the gold, or the whole scenario). */
  exclude?: ReadonlySet<string>;
  /** The gold is that no listed label applies: an out-of-scope option is added and is gold. */
  none?: boolean;
  emotion?: boolean;
  /** Never add descriptions written from the label (labels that read badly in a sentence). */
  plain?: boolean;
  /** Distractors always offered (when the option count allows). */
  prefer?: readonly string[];
  /** Fewest and most options (inclusive); at most the labels available. */
  min?: number;
  max?: number;
}

/** A choice question's criteria and gold option name. */
export function optionSet(spec: OptionSpec, instructions: string | null, random: Random): { question: ChoiceQuestion; gold: string } {
  const others = spec.labels.filter((l) => l !== spec.gold && !spec.exclude?.has(l));
  const max = Math.min(spec.max ?? 40, others.length + 1);
  const n = between(Math.min(spec.min ?? 2, max), max, random);
  const preferred = (spec.prefer ?? []).filter((l) => others.includes(l)).slice(0, n - 1);
  const rest = sample(others.filter((l) => !preferred.includes(l)), n - 1 - preferred.length, random);
  const labels = spec.none ? [...preferred, ...rest] : [spec.gold, ...preferred, ...rest];
  const noneName = spec.none || random() < 0.12 ? pick(spec.emotion ? NONE_OPTIONS.filter((o) => !/intent|scope/.test(o)) : NONE_OPTIONS, random) : null;
  const style = random();
  const describe = !spec.plain && random() < 0.35;
  const criteria: Record<string, Content | null> = {};
  let gold = '';
  const ordered = shuffledBy(labels, random);
  const numbered = style < 0.1;
  // Numbered names: 1, 2, 3 ... or A, B, ... Z, A1, B1 ...
  const nameAt = (i: number) => (style < 0.05 ? String(i + 1) : String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : ''));
  const entries: [string, Content | null][] = ordered.map((label, i) => {
    const words = labelWords(label);
    const name = numbered ? nameAt(i) : style < 0.4 ? label : style < 0.75 ? words : titleCase(words);
    if (label === spec.gold) gold = name;
    return [name, numbered ? words : describe ? pick(spec.emotion ? DESCRIBE_EMOTION : DESCRIBE, random)(words) : null];
  });
  if (noneName !== null) {
    // The out-of-scope option goes last or at a random place (real option lists do both);
    // numbered lists keep their order, so it goes last there.
    const at = numbered || random() < 0.5 ? entries.length : Math.floor(random() * (entries.length + 1));
    const name = numbered ? nameAt(entries.length) : noneName;
    entries.splice(at, 0, [name, numbered ? noneName : describe ? 'None of the listed options applies.' : null]);
    if (spec.none) gold = name;
  }
  for (const [k, v] of entries) criteria[k] = v;
  const question: ChoiceQuestion = instructions === null ? { type: 'choice', criteria } : { type: 'choice', instructions, criteria };
  return { question, gold };
}
