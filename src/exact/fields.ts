/**
 * Fields of a JSON state (and of structured instructions' data): resolving a backtick reference
 * (`total`, `wind.gust_kmh`, `items[3].category`, `[2].replies`, `readings[].value`), reading a
 * field's value as a quantity, a date, a boolean or a string; the words of keys and of noun
 * phrases (label-binding.ts finds the one field a question's words name).
 * @module
 */
import { parseDate, type DateValue } from './dates.js';
import { parseQuantity, unitFromName, type Quantity } from './quantity.js';

/** A value read exactly from the state. */
export type Value =
  | { kind: 'number'; q: Quantity }
  | { kind: 'date'; d: DateValue }
  | { kind: 'boolean'; b: boolean }
  | { kind: 'string'; s: string }
  | { kind: 'null' }
  | { kind: 'list'; items: unknown[] }
  | { kind: 'object' };

/** A leaf of the state with its path. */
export interface Leaf {
  path: string;
  /** Key names from the root, array positions left out. */
  keys: string[];
  /** Whether the path goes through an array (so a name alone does not single it out). */
  inArray: boolean;
  value: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Words of a key: `gust_kmh` -> gust, kmh; `startDate` -> start, date. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9%]+/)
    .filter((w) => w !== '');
}

/** A light stemmer for matching question words with key words: plurals and a few endings. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}

/** Every leaf (non-container value) and every list of the state, depth-first. */
export function leaves(root: unknown, limit = 5000): Leaf[] {
  const out: Leaf[] = [];
  const walk = (v: unknown, path: string, keys: string[], inArray: boolean, depth: number): void => {
    if (out.length >= limit || depth > 12) return;
    if (Array.isArray(v)) {
      out.push({ path, keys, inArray, value: v });
      v.forEach((item, i) => walk(item, `${path}[${i}]`, keys, true, depth + 1));
    } else if (isObject(v)) {
      for (const k of Object.keys(v)) walk(v[k], path === '' ? k : `${path}.${k}`, [...keys, k], inArray, depth + 1);
    } else out.push({ path, keys, inArray, value: v });
  };
  walk(root, '', [], false, 0);
  return out;
}

/** A parsed reference: steps of keys, indexes and `[]` (every item). */
type Step = { key: string } | { index: number } | { each: true };

function parseReference(ref: string): Step[] | undefined {
  const steps: Step[] = [];
  const re = /\[(\d*)\]|\.?([^.[\]]+)/g;
  let consumed = 0;
  for (const m of ref.matchAll(re)) {
    if (m.index !== consumed) return undefined;
    consumed += m[0].length;
    if (m[2] !== undefined) steps.push({ key: m[2] });
    else steps.push(m[1] === '' ? { each: true } : { index: Number(m[1]) });
  }
  return consumed === ref.length && steps.length > 0 ? steps : undefined;
}

/**
 * Resolves a reference against a root. A name that is a key as written (dots, spaces and all)
 * wins over its reading as a path. Returns the value, a list of values for a `[]` step, or
 * undefined when a step is missing (the reference does not bind).
 */
export function resolve(root: unknown, ref: string): { value: unknown; many: boolean } | undefined {
  if (isObject(root) && has(root, ref)) return { value: root[ref], many: false };
  const steps = parseReference(ref);
  if (!steps) return undefined;
  let values: unknown[] = [root];
  let many = false;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of values) {
      if ('key' in step) {
        if (!isObject(v) || !has(v, step.key)) return undefined;
        next.push(v[step.key]);
      } else if ('index' in step) {
        if (!Array.isArray(v) || step.index >= v.length) return undefined;
        next.push(v[step.index]);
      } else {
        if (!Array.isArray(v)) return undefined;
        many = true;
        next.push(...v);
      }
    }
    values = next;
  }
  return many ? { value: values, many } : { value: values[0], many };
}

/** The last key of a reference, for its unit: `wind.speed_kmh` -> `speed_kmh`. */
export function lastKey(ref: string): string {
  const steps = parseReference(ref);
  const keys = (steps ?? []).filter((s): s is { key: string } => 'key' in s);
  return keys.length ? keys[keys.length - 1]!.key : ref;
}

/**
 * Reads a raw JSON value exactly. Numbers take the unit their field's name carries
 * (`total_eur` -> euros, `duration_min` -> minutes); strings are read as a date, then as a
 * quantity ("$612.40", "38 km/h"), else as text.
 */
export function readValue(raw: unknown, key = ''): Value {
  if (raw === null || raw === undefined) return { kind: 'null' };
  if (typeof raw === 'boolean') return { kind: 'boolean', b: raw };
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { kind: 'string', s: String(raw) };
    const u = unitFromName(keyWords(key));
    return { kind: 'number', q: { value: raw * (u?.factor ?? 1), dim: u?.dim ?? 'count', factor: u?.factor ?? 1, text: String(raw) } };
  }
  if (typeof raw === 'string') {
    const d = parseDate(raw);
    if (d) return { kind: 'date', d };
    const q = parseQuantity(raw);
    if (q) {
      const u = q.dim === 'count' ? unitFromName(keyWords(key)) : undefined;
      return { kind: 'number', q: u ? { value: q.value * u.factor, dim: u.dim, factor: u.factor, text: q.text } : q };
    }
    return { kind: 'string', s: raw };
  }
  if (Array.isArray(raw)) return { kind: 'list', items: raw };
  return { kind: 'object' };
}

/** Words that never carry a field's meaning in a question's noun phrase. */
const FILLER = new Set(['the', 'a', 'an', 'this', 'that', 'its', 'their', 'his', 'her', 'our', 'your', 'my', 'of', 'in', 'on', 'for', 'value', 'field', 'listed', 'stated', 'recorded', 'reported', 'current', 'amount', 'number']);

/** Content words of a noun phrase, stemmed. */
export function phraseWords(phrase: string): string[] {
  return phrase
    .toLowerCase()
    .replace(/['\u2019]s\b/g, '')
    .split(/[^a-z0-9%]+/)
    .filter((w) => w !== '' && !FILLER.has(w))
    .map(stem);
}
