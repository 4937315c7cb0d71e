/**
 * Binding a question's named quantity in a text state: "Is the opening balance above $600?"
 * against "Opening balance 1 Aug: $612.40." Only numbers with a unit (a currency, %, a physical
 * unit or a duration) bind, only when their unit's dimension is the question constant's, and
 * only when every content word of the question's phrase occurs in the words just before the
 * number, in the same sentence. Several candidates bind only when they agree on the value;
 * otherwise (a corrected figure, two people's balances) the stage abstains.
 * @module
 */
import { phraseWords, stem } from './fields.js';
import { findQuantities, parseDigits, writtenNumber, type FoundQuantity } from './quantity.js';

/** Words before a number that may hold its label. */
const WINDOW = 10;

/** Sentence or clause ends that a label never crosses. */
const BOUNDARY = /[.;!?\n]\s|[.;!?\n]$|\n/g;

/** The candidates for the phrase with dimension `dim`; empty when none binds. */
export function textCandidates(text: string, phrase: string, dim: string): FoundQuantity[] {
  if (dim === 'count') return [];
  const words = phraseWords(phrase);
  if (words.length === 0 || words.length > 5) return [];
  const found = findQuantities(text);
  const out: FoundQuantity[] = [];
  for (const q of found) {
    if (q.dim !== dim) continue;
    // The label window: back to the sentence start or the previous measured number, at most WINDOW words.
    let from = 0;
    for (const m of text.slice(0, q.start).matchAll(BOUNDARY)) from = m.index + m[0].length;
    const previous = found.filter((p) => p.dim !== 'count' && p.end <= q.start && p.end > from).pop();
    if (previous) from = previous.end;
    const window = text
      .slice(from, q.start)
      .toLowerCase()
      .split(/[^a-z0-9%]+/)
      .filter((w) => w !== '')
      .slice(-WINDOW)
      .map(stem);
    if (words.every((w) => window.includes(w))) out.push(q);
  }
  return out;
}

/** The bound quantity, or undefined when none or several different values bind. */
export function bindText(text: string, phrase: string, dim: string): FoundQuantity | undefined {
  const c = textCandidates(text, phrase, dim);
  if (c.length === 0) return undefined;
  return c.every((q) => q.value === c[0]!.value) ? c[0] : undefined;
}

/** Words that follow a number without being what it counts. */
const NOT_COUNTED = new Set(['of', 'and', 'or', 'to', 'in', 'on', 'at', 'for', 'per', 'a', 'an', 'the', 'more', 'less', 'than', 'times']);

/**
 * The one count of `noun` in a text state: numbers written with digits or words ("3 quotes",
 * "sixty users") directly followed by the noun, in a sentence that holds every context word.
 * Several candidates bind only when they agree.
 */
export function bindCounted(text: string, noun: string, context: readonly string[]): number | undefined {
  if (NOT_COUNTED.has(noun)) return undefined;
  const values = new Set<number>();
  for (const sentence of text.split(/[.;!?\n]+(?:\s|$)/)) {
    const words = sentence.toLowerCase().split(/[^a-z0-9,.%$-]+/).map((w) => w.replace(/[,.]$/, '')).filter((w) => w !== '');
    const stems = words.map(stem);
    for (let i = 0; i < words.length; i++) {
      const digits = parseDigits(words[i]!);
      const written = digits === undefined && words[i] !== 'a' && words[i] !== 'an' ? writtenNumber(words.slice(i, i + 6)) : undefined;
      const value = digits ?? written?.value;
      const next = i + (digits !== undefined ? 1 : (written?.used ?? 1));
      if (value === undefined || stems[next] !== noun) continue;
      if (!context.every((w) => stems.includes(w))) continue;
      values.add(value);
    }
  }
  return values.size === 1 ? [...values][0] : undefined;
}
