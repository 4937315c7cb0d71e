/**
 * Quantities as questions and states write them: digits with thousands separators, written-out
 * numbers ("sixty", "two hundred", "a dozen"), multipliers (k, thousand, million, bn), and a
 * unit: a currency, a percentage, or a physical unit (mass, length, duration, speed, data,
 * temperature). Every value is converted to its dimension's base unit (grams, metres, seconds,
 * km/h, bytes, °C, one unit of the currency), so that "0.5 kg" and "500 g" compare equal and a
 * kilogram never compares with a day.
 *
 * A dimension is `count` when no unit is written; currencies are one dimension per currency
 * (`money:USD`, `money:EUR`, `money:GBP`), so dollars never compare with euros. A count
 * compares with any dimension, in the other side's written unit (see `comparable`): a field
 * `total_eur: 1250` asked about "100" compares euros.
 * @module
 */

/** A number with its dimension, in the dimension's base unit. */
export interface Quantity {
  /** Value in the base unit of `dim`. */
  value: number;
  /** `count`, `percent`, `money:USD`, `money:EUR`, `money:GBP`, `mass`, `length`, `time`, `speed`, `data`, `temp`. */
  dim: string;
  /** The text it was read from. */
  text: string;
  /** Base units per written unit (1000 for "5 km"); 1 for a count. Absent means 1. */
  factor?: number;
}

interface UnitDef {
  dim: string;
  factor: number;
}

const CURRENCY_SYMBOL: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP' };

/** Unit words and abbreviations, lower case. Durations of a month or a year are calendar-free averages. */
const UNITS: Record<string, UnitDef> = {
  '%': { dim: 'percent', factor: 1 },
  percent: { dim: 'percent', factor: 1 },
  'per cent': { dim: 'percent', factor: 1 },
  pct: { dim: 'percent', factor: 1 },
  usd: { dim: 'money:USD', factor: 1 },
  dollar: { dim: 'money:USD', factor: 1 },
  dollars: { dim: 'money:USD', factor: 1 },
  eur: { dim: 'money:EUR', factor: 1 },
  euro: { dim: 'money:EUR', factor: 1 },
  euros: { dim: 'money:EUR', factor: 1 },
  gbp: { dim: 'money:GBP', factor: 1 },
  pounds: { dim: 'money:GBP', factor: 1 },
  mg: { dim: 'mass', factor: 0.001 },
  g: { dim: 'mass', factor: 1 },
  gram: { dim: 'mass', factor: 1 },
  grams: { dim: 'mass', factor: 1 },
  kg: { dim: 'mass', factor: 1000 },
  kilogram: { dim: 'mass', factor: 1000 },
  kilograms: { dim: 'mass', factor: 1000 },
  kilo: { dim: 'mass', factor: 1000 },
  kilos: { dim: 'mass', factor: 1000 },
  t: { dim: 'mass', factor: 1e6 },
  tonne: { dim: 'mass', factor: 1e6 },
  tonnes: { dim: 'mass', factor: 1e6 },
  lb: { dim: 'mass', factor: 453.59237 },
  lbs: { dim: 'mass', factor: 453.59237 },
  mm: { dim: 'length', factor: 0.001 },
  millimeters: { dim: 'length', factor: 0.001 },
  millimetres: { dim: 'length', factor: 0.001 },
  cm: { dim: 'length', factor: 0.01 },
  centimeters: { dim: 'length', factor: 0.01 },
  centimetres: { dim: 'length', factor: 0.01 },
  m: { dim: 'length', factor: 1 },
  meter: { dim: 'length', factor: 1 },
  meters: { dim: 'length', factor: 1 },
  metre: { dim: 'length', factor: 1 },
  metres: { dim: 'length', factor: 1 },
  km: { dim: 'length', factor: 1000 },
  kilometers: { dim: 'length', factor: 1000 },
  kilometres: { dim: 'length', factor: 1000 },
  mi: { dim: 'length', factor: 1609.344 },
  mile: { dim: 'length', factor: 1609.344 },
  miles: { dim: 'length', factor: 1609.344 },
  ms: { dim: 'time', factor: 0.001 },
  milliseconds: { dim: 'time', factor: 0.001 },
  s: { dim: 'time', factor: 1 },
  sec: { dim: 'time', factor: 1 },
  secs: { dim: 'time', factor: 1 },
  second: { dim: 'time', factor: 1 },
  seconds: { dim: 'time', factor: 1 },
  min: { dim: 'time', factor: 60 },
  mins: { dim: 'time', factor: 60 },
  minute: { dim: 'time', factor: 60 },
  minutes: { dim: 'time', factor: 60 },
  h: { dim: 'time', factor: 3600 },
  hr: { dim: 'time', factor: 3600 },
  hrs: { dim: 'time', factor: 3600 },
  hour: { dim: 'time', factor: 3600 },
  hours: { dim: 'time', factor: 3600 },
  day: { dim: 'time', factor: 86400 },
  days: { dim: 'time', factor: 86400 },
  week: { dim: 'time', factor: 7 * 86400 },
  weeks: { dim: 'time', factor: 7 * 86400 },
  'km/h': { dim: 'speed', factor: 1 },
  kmh: { dim: 'speed', factor: 1 },
  kph: { dim: 'speed', factor: 1 },
  mph: { dim: 'speed', factor: 1.609344 },
  kb: { dim: 'data', factor: 1e3 },
  mb: { dim: 'data', factor: 1e6 },
  gb: { dim: 'data', factor: 1e9 },
  tb: { dim: 'data', factor: 1e12 },
  '°c': { dim: 'temp', factor: 1 },
  c: { dim: 'temp', factor: 1 },
  celsius: { dim: 'temp', factor: 1 },
};

/** Unit of a dimension's base, for explanations. */
export const BASE_UNIT: Readonly<Record<string, string>> = { mass: 'g', length: 'm', time: 's', speed: 'km/h', data: 'B', temp: '°C', percent: '%' };

/** Looks a unit word up (lower case), or undefined. */
export function unitOf(word: string): UnitDef | undefined {
  return Object.prototype.hasOwnProperty.call(UNITS, word) ? UNITS[word] : undefined;
}

const ONES: Record<string, number> = {
  zero: 0, none: 0, one: 1, a: 1, an: 1, single: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { hundred: 100, thousand: 1e3, k: 1e3, million: 1e6, mn: 1e6, m: 1e6, billion: 1e9, bn: 1e9, b: 1e9 };

const own = (table: Record<string, number>, w: string): number | undefined => (Object.prototype.hasOwnProperty.call(table, w) ? table[w] : undefined);

/**
 * A written-out number at the start of `words` ("two hundred and fifty", "a dozen", "sixty-five"),
 * with how many words it used, or undefined. "a"/"an" count only before a scale or "dozen".
 */
export function writtenNumber(words: readonly string[]): { value: number; used: number } | undefined {
  let total = 0;
  let current = 0;
  let used = 0;
  let seen = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === 'and' && seen && i + 1 < words.length && (own(ONES, words[i + 1]!) !== undefined || own(TENS, words[i + 1]!.split('-')[0]!) !== undefined)) continue;
    const parts = w.split('-');
    const tens = own(TENS, parts[0]!);
    const one = own(ONES, w);
    if (tens !== undefined && parts.length <= 2) {
      const unit = parts[1] === undefined ? 0 : own(ONES, parts[1]);
      if (unit === undefined || unit > 9) break;
      current += tens + unit;
    } else if (one !== undefined && !(w === 'none' && seen)) {
      if ((w === 'a' || w === 'an') && !['dozen', 'hundred', 'thousand', 'million', 'billion'].includes(words[i + 1] ?? '')) break;
      current += one;
    } else if (w === 'dozen') {
      current = (current || 1) * 12;
    } else if (seen && (w === 'hundred' || w === 'thousand' || w === 'million' || w === 'billion')) {
      const scale = SCALES[w]!;
      if (scale === 100) current *= 100;
      else {
        total += current * scale;
        current = 0;
      }
    } else break;
    seen = true;
    used = i + 1;
  }
  if (!seen) return undefined;
  return { value: total + current, used };
}

/**
 * Digits as written: "1,450.50", "12.5", "-3", "1 200" is not one number. Thousands separators
 * must group by three, else the text is not a plain number (an id, a version, a date).
 */
export function parseDigits(text: string): number | undefined {
  if (!/^-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/.test(text)) return undefined;
  return Number(text.replace(/,/g, ''));
}

const NUMBER_RE = String.raw`(?:-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)`;
const MULT_RE = String.raw`(?:\s?(?:k|thousand|million|mn|m|billion|bn|b)\b)?`;
const UNIT_RE = String.raw`(?:\s?(?:%|per cent|percent|pct|km\/h|°\s?c|[a-z]+\b))?`;
/** A currency symbol or code, a number, a multiplier and a unit word. */
const QUANTITY = new RegExp(String.raw`(?<cur>[$€£]|\b(?:usd|eur|gbp)\s?)?(?<num>${NUMBER_RE})(?<mult>${MULT_RE})(?<unit>${UNIT_RE})`, 'giu');

/** A quantity found in a text, with its character span. */
export interface FoundQuantity extends Quantity {
  start: number;
  end: number;
}

/**
 * Quantities written with digits in a text. Numbers that are part of a date, a time, an id or
 * a version ("2025-03-01", "10:30", "INV-2041", "v1.2.3", "#1182") are skipped; a unit word
 * that is not a unit is left out of the match (then the quantity is a count).
 */
export function findQuantities(text: string): FoundQuantity[] {
  const out: FoundQuantity[] = [];
  for (const m of text.matchAll(QUANTITY)) {
    const g = m.groups!;
    const start = m.index;
    const before = text.slice(Math.max(0, start - 1), start);
    const numEnd = start + (g.cur?.length ?? 0) + g.num!.length;
    const after = text.slice(numEnd, numEnd + 1);
    // Parts of dates, times, ids, versions, ordinals or identifiers are not quantities.
    if (/[\w\-/:#.]/.test(before) && !g.cur) continue;
    if (/^[\-/:]\d/.test(text.slice(numEnd, numEnd + 2)) || /^\.\d/.test(text.slice(numEnd, numEnd + 2))) continue;
    if (/[a-z]/i.test(after) && !/^(?:k|m|bn|b|mn|kg|km|g|mm|cm|ms|h|s|t|mb|gb|kb|tb|lb|lbs|mi|min|hr|hrs|kmh|mph|kph|pct)\b/i.test(text.slice(numEnd).trimStart() || 'x')) continue;
    const value = parseDigits(g.num!.startsWith('.') ? `0${g.num}` : g.num!);
    if (value === undefined) continue;
    const q = withUnits(value, g.cur?.trim(), g.mult?.trim(), g.unit?.trim());
    if (!q) continue;
    const used = q.unitUsed ? m[0].length : m[0].length - (g.unit?.length ?? 0);
    out.push({ value: q.value, dim: q.dim, factor: q.factor, text: text.slice(start, start + used).trim(), start, end: start + used });
  }
  return out;
}

/** Applies a currency, a multiplier and a unit word to a number; unitUsed false when the word is no unit. */
function withUnits(n: number, cur: string | undefined, mult: string | undefined, unitWord: string | undefined): { value: number; dim: string; factor: number; unitUsed: boolean } | undefined {
  let value = n;
  let dim = 'count';
  const currency = cur ? (CURRENCY_SYMBOL[cur] ?? cur.toUpperCase()) : undefined;
  if (currency) dim = `money:${currency}`;
  if (mult) {
    const lower = mult.toLowerCase();
    // "5 m" with no currency is metres, not millions; "5 b" is not a multiplier without one.
    if ((lower === 'm' || lower === 'b') && !currency) return withUnits(n, cur, undefined, mult + (unitWord ? ` ${unitWord}` : ''));
    value *= SCALES[lower] ?? 1;
  }
  let unitUsed = false;
  if (unitWord) {
    const u = unitOf(unitWord.toLowerCase().replace(/\s+/g, ' ').replace('° c', '°c'));
    if (u) {
      if (currency && !u.dim.startsWith('money:')) return { value, dim, factor: 1, unitUsed: false };
      if (currency && u.dim !== dim) return undefined;
      dim = u.dim;
      value *= u.factor;
      return { value, dim, factor: u.factor, unitUsed: true };
    }
  }
  return { value, dim, factor: 1, unitUsed };
}

/**
 * Parses a whole phrase as one quantity: digits or a written-out number, with currency,
 * multiplier and unit ("$1.2 million", "two weeks", "sixty-five km/h", "40 MB"). Undefined when
 * the phrase holds anything else.
 */
export function parseQuantity(phrase: string): Quantity | undefined {
  const text = phrase.trim().replace(/[.,;:!?]+$/, '').trim();
  if (text === '') return undefined;
  const found = findQuantities(text);
  const only = found.length === 1 ? found[0]! : undefined;
  if (only && only.start === 0 && only.end === text.length) return { value: only.value, dim: only.dim, factor: only.factor ?? 1, text: only.text };
  // Written-out: "two weeks", "a dozen", "five thousand dollars", "half an hour".
  const lower = text.toLowerCase();
  if (/^half an? (hour|day|kilogram|kilo|mile|minute)$/.test(lower)) {
    const u = unitOf(`${lower.split(' ')[2]}s`) ?? unitOf(lower.split(' ')[2]!)!;
    return { value: 0.5 * u.factor, dim: u.dim, factor: u.factor, text };
  }
  const words = lower.split(/\s+/);
  const w = writtenNumber(words);
  if (!w) return undefined;
  const rest = words.slice(w.used).join(' ');
  if (rest === '') return { value: w.value, dim: 'count', text };
  const u = unitOf(rest);
  if (!u) return undefined;
  return { value: w.value * u.factor, dim: u.dim, factor: u.factor, text };
}

/**
 * Whether two quantities can be compared: same dimension, or one of them a plain count where
 * the other's unit is implied (a field `total_eur: 1250` asked about "100"). Two different
 * currencies never compare.
 */
export function compatible(a: string, b: string): boolean {
  return a === b || a === 'count' || b === 'count';
}

/**
 * The two values to compare: base units when the dimensions agree; as written when one side
 * is a plain count, which then counts in the other side's written unit ("`duration_min` > 65"
 * compares minutes; "`rain_mm` above 5 mm" compares millimetres). Undefined when they do not compare.
 */
export function comparable(a: Quantity, b: Quantity): [number, number] | undefined {
  if (!compatible(a.dim, b.dim)) return undefined;
  if (a.dim === b.dim) return [a.value, b.value];
  return [a.value / (a.factor ?? 1), b.value / (b.factor ?? 1)];
}

/** Words before a unit word that make it part of a period, not the field's unit (`logins_last_hour`, `cost_per_day`). */
const NOT_A_UNIT_AFTER = new Set(['per', 'last', 'a', 'an', 'each', 'this', 'next', 'every', 'one']);

/** The unit a field name carries as its last word (`total_eur`, `speed_kmh`, `weight_kg`, `duration_min`). */
export function unitFromName(words: readonly string[]): UnitDef | undefined {
  const w = words[words.length - 1];
  if (w === undefined || ['m', 's', 'c', 't', 'h', 'g', 'b'].includes(w) || NOT_A_UNIT_AFTER.has(words[words.length - 2] ?? '')) return undefined;
  return unitOf(w);
}
