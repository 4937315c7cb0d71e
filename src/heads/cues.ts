/**
 * Parameter-free cue features the late-interaction heads cannot get from the frozen token
 * states: the encoder sees that a question's words occur in the state, but barely encodes
 * whether the state negates them ("there is no workaround") or which side of a threshold a
 * number lies ("Sixty of our users" against "more than 50 seats"). Both are read here from the
 * token ids themselves, through the vocabulary's pieces, so they are computed wherever the ids
 * are (training, serving) with no extra encoder pass.
 *
 * - Negation scope: the words within a short window after a negation cue (not, no, never, n't,
 *   without, ...), up to a clause boundary, and the key of a `key: false|no|null|none` field.
 * - Numbers: digits (1,450.5, $64.90, 12%) and number words (sixty, two hundred, a dozen);
 *   dates, ids and times are not numbers.
 * - Comparisons: "more than 50", "at least five", "under $70", "10 or more", ...
 * @module
 */
import { readFileSync } from 'node:fs';
import { loadedVocabulary, parseVocabulary, vocabularyPath } from '../tokenizer/index.js';

/** Words after a negation cue that stay in its scope (a short window: cues negate what follows closely). */
export const NEG_WINDOW = 6;

let table: readonly string[] | undefined;

/** Vocabulary pieces by id (the loaded vocabulary, else read from the installed package). */
export function pieceTable(): readonly string[] {
  if (!table) {
    const vocab = loadedVocabulary() ?? parseVocabulary(JSON.parse(readFileSync(vocabularyPath(), 'utf8')), vocabularyPath());
    table = vocab.map((e) => e[0]);
  }
  return table;
}

/** Text rebuilt from token ids ("▁" as a space) and the character offset where each token starts. */
export function decode(ids: readonly number[], pieces: readonly string[] = pieceTable()): { text: string; starts: number[] } {
  let text = '';
  const starts: number[] = [];
  for (const id of ids) {
    starts.push(text.length);
    text += (pieces[id] ?? '').replace(/\u2581/g, ' ');
  }
  return { text, starts };
}

/** Index of the token covering character `c` (last token starting at or before it). */
function tokenAt(starts: readonly number[], c: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= c) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const CUE = /^(?:not|no|never|none|nobody|nothing|nowhere|neither|nor|cannot|without|lack|lacks|lacked|lacking|unable|[a-z]+n't|dont|didnt|doesnt|isnt|wasnt|arent|werent|havent|hasnt|hadnt|cant|wont|couldnt|wouldnt|shouldnt)$/;
/** Words and clause punctuation; a clause boundary ends a negation's scope. */
const WORD = /[a-z]+(?:['\u2019][a-z]+)?|\d[\d,.]*|[.;:!?,()]/g;
const BOUNDARY = /^(?:[.;:!?,()]|but|however|although|though|yet|while|because|whereas)$/;
const FALSY_FIELD = /([a-z_][\w]*)\s*:\s*(?:false|no|null|none|n\/a)\b/g;

/** Character spans of the words a negation covers, and whether the text has a negation cue at all. */
export function negationSpans(text: string): { spans: [number, number][]; negated: boolean } {
  const lower = text.toLowerCase().replace(/\u2019/g, "'");
  const words = [...lower.matchAll(WORD)].map((m) => ({ w: m[0], start: m.index, end: m.index + m[0].length }));
  const spans: [number, number][] = [];
  let negated = false;
  words.forEach((word, i) => {
    // "Is it false that ...", "it is untrue that ...": the statement that follows is negated.
    const falseThat = /^(?:false|untrue)$/.test(word.w) && words[i + 1]?.w === 'that' && /^(?:it|is)$/.test(words[i - 1]?.w ?? '');
    if (!CUE.test(word.w) && !falseThat) return;
    // "no more than 5", "not only": a bound or an intensifier, not a negation.
    if (/^(?:no|not)$/.test(word.w) && /^(?:more|less|fewer|greater|higher|lower|only|later|earlier|sooner)$/.test(words[i + 1]?.w ?? '')) return;
    negated = true;
    let taken = 0;
    for (let j = i + 1; j < words.length && taken < NEG_WINDOW; j++) {
      if (BOUNDARY.test(words[j]!.w)) break;
      spans.push([words[j]!.start, words[j]!.end]);
      taken++;
    }
  });
  // Structured states say "no" as a field value: the field's name is what is negated.
  for (const m of lower.matchAll(FALSY_FIELD)) spans.push([m.index, m.index + m[1]!.length]);
  return { spans, negated };
}

const SMALL: Record<string, number> = Object.fromEntries(
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ').map((w, i) => [w, i]),
);
const TENS: Record<string, number> = Object.fromEntries('twenty thirty forty fifty sixty seventy eighty ninety'.split(' ').map((w, i) => [w, 20 + 10 * i]));
const SCALE: Record<string, number> = { hundred: 100, thousand: 1000, million: 1e6, billion: 1e9 };

/** A number found in a text: its value and character span. */
export interface NumberSpan {
  value: number;
  start: number;
  end: number;
}

const DIGITS = /(?<![\w\-/:.#])[$£€]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?(k|thousand|million|billion)\b)?%?(?![\w\-/:]|\.\d)/g;
const NUMBER_WORDS = /\b(?:a dozen|dozen|(?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:and[\s-])?(?:one|two|three|four|five|six|seven|eight|nine|hundred|thousand|million|billion|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))*))\b/g;

/** Value of a run of number words ("sixty-five", "two hundred and ten", "a dozen"). */
export function wordsValue(words: string): number {
  if (/dozen/.test(words)) return 12;
  let total = 0;
  let current = 0;
  for (const w of words.split(/[\s-]+/)) {
    if (w in SMALL) current += SMALL[w]!;
    else if (w in TENS) current += TENS[w]!;
    else if (w === 'hundred') current = Math.max(1, current) * 100;
    else if (w in SCALE) {
      total += Math.max(1, current) * SCALE[w]!;
      current = 0;
    }
  }
  return total + current;
}

/** Numbers in a text, in order: digits (with thousands separators, decimals, k/thousand/million) and number words. */
export function parseNumbers(text: string): NumberSpan[] {
  const lower = text.toLowerCase();
  const out: NumberSpan[] = [];
  for (const m of lower.matchAll(DIGITS)) {
    const scale = m[3] === 'k' || m[3] === 'thousand' ? 1e3 : m[3] === 'million' ? 1e6 : m[3] === 'billion' ? 1e9 : 1;
    out.push({ value: Number(m[1]!.replace(/,/g, '') + (m[2] ?? '')) * scale, start: m.index, end: m.index + m[0].length });
  }
  for (const m of lower.matchAll(NUMBER_WORDS)) out.push({ value: wordsValue(m[0]), start: m.index, end: m.index + m[0].length });
  return out.sort((a, b) => a.start - b.start);
}

export type ComparisonOp = 'gt' | 'ge' | 'lt' | 'le';

/** A threshold a text asks about: "more than 50" is {op: 'gt', value: 50}. */
export interface Comparison {
  op: ComparisonOp;
  value: number;
  start: number;
  end: number;
}

// Longer phrases first, so that "no more than" is not read as "more than".
const BEFORE: [RegExp, ComparisonOp][] = [
  [/(?:no|not) (?:more|greater|higher) than|at most|a maximum of|maximum of|up to|(?:does|do|did) not exceed|not exceeding|not over/, 'le'],
  [/(?:no|not) (?:less|fewer|lower) than|at least|a minimum of|minimum of/, 'ge'],
  [/more than|greater than|higher than|larger than|bigger than|longer than|older than|in excess of|exceeds?|exceeded|exceeding|over|above|beyond/, 'gt'],
  [/less than|fewer than|lower than|smaller than|shorter than|younger than|cheaper than|under|below|within/, 'lt'],
];
const AFTER: [RegExp, ComparisonOp][] = [
  [/^\s*(?:\S+\s+)?or (?:more|higher|above|greater|over|longer)\b/, 'ge'],
  [/^\s*(?:\S+\s+)?or (?:less|fewer|lower|below|under|shorter)\b/, 'le'],
];

/** The first comparison with a number in a text, or null. "within 14 days" reads as "under". */
export function parseComparison(text: string): Comparison | null {
  const lower = text.toLowerCase();
  for (const n of parseNumbers(text)) {
    const before = lower.slice(Math.max(0, n.start - 40), n.start);
    for (const [re, op] of BEFORE) {
      const m = new RegExp(`\\b(?:${re.source})\\s+(?:the\\s+)?$`).exec(before);
      if (m) return { op: op === 'lt' && /within\s+$/.test(m[0]) ? 'le' : op, value: n.value, start: n.start - m[0].length, end: n.end };
    }
    const after = lower.slice(n.end, n.end + 30);
    for (const [re, op] of AFTER) {
      const m = re.exec(after);
      if (m) return { op, value: n.value, start: n.start, end: n.end + m[0].length };
    }
  }
  return null;
}

/** +1 when `x` satisfies the comparison, -1 when it does not. */
export function compare(x: number, c: Pick<Comparison, 'op' | 'value'>): 1 | -1 {
  const ok = c.op === 'gt' ? x > c.value : c.op === 'ge' ? x >= c.value : c.op === 'lt' ? x < c.value : x <= c.value;
  return ok ? 1 : -1;
}

/** Token-level cues of one text. */
export interface TextCues {
  /** 1 where the token lies in a negation's scope [n]. */
  negScope: Float32Array;
  /** 1 if the text contains a negation cue. */
  negated: number;
  /** Numbers with the index of their first token. */
  numbers: { value: number; token: number }[];
  /** The comparison the text asks about, with its token range [first, last], or null. */
  comparison: (Comparison & { first: number; last: number }) | null;
}

const memo = new WeakMap<readonly number[], TextCues>();

/** Cues of a text given its token ids; memoised per ids array (a state's ids serve every question). */
export function textCues(ids: readonly number[]): TextCues {
  let hit = memo.get(ids);
  if (hit) return hit;
  const { text, starts } = decode(ids);
  const negScope = new Float32Array(ids.length);
  const neg = negationSpans(text);
  if (ids.length > 0) {
    for (const [a, b] of neg.spans) for (let t = tokenAt(starts, a); t <= tokenAt(starts, b - 1); t++) negScope[t] = 1;
  }
  const numbers = ids.length ? parseNumbers(text).map((n) => ({ value: n.value, token: tokenAt(starts, n.start) })) : [];
  const c = ids.length ? parseComparison(text) : null;
  hit = { negScope, negated: neg.negated ? 1 : 0, numbers, comparison: c ? { ...c, first: tokenAt(starts, c.start), last: tokenAt(starts, c.end - 1) } : null };
  memo.set(ids, hit);
  return hit;
}

/**
 * Compares a text's threshold with the state's numbers. Each state number is weighted by how
 * close it lies to where the text's other tokens align (best cosine above 0.5, decaying with
 * token distance), so "more than 50 seats" is checked against the number beside "users", not
 * against an order id. Returns [has comparison, sign for the closest number, weighted mean sign].
 */
export function comparisonFeatures(text: TextCues, state: TextCues, best: Float32Array, argmax: Int32Array): [number, number, number] {
  const c = text.comparison;
  if (!c) return [0, 0, 0];
  if (state.numbers.length === 0) return [1, 0, 0];
  const rel = state.numbers.map(({ token }) => {
    let r = 0;
    for (let i = 0; i < best.length; i++) {
      if (i >= c.first && i <= c.last) continue;
      const w = best[i]! - 0.5;
      if (w > 0) r += w * Math.exp(-Math.abs(argmax[i]! - token) / 6);
    }
    return r;
  });
  const total = rel.reduce((s, r) => s + r, 0);
  let top = 0;
  rel.forEach((r, k) => {
    if (r > rel[top]!) top = k;
  });
  const signs = state.numbers.map((n) => compare(n.value, c));
  const mean = total > 0 ? signs.reduce((s: number, v, k) => s + (v * rel[k]!) / total, 0) : signs.reduce((s: number, v) => s + v, 0) / signs.length;
  return [1, signs[top]!, mean];
}
