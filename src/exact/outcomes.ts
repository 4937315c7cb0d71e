/**
 * Choice options and score levels that state a range or a value ("under $500", "$500 to
 * $1,999", "3-5", "6 or more", "none", "72% to under 76%", "mild: above 10 °C up to 20 °C"),
 * read as intervals, so that a value question is answered exactly when exactly one option's
 * interval holds the value. Every option must read as a range, or the stage abstains.
 * @module
 */
import { compareDates, parseDate, type DateValue } from './dates.js';
import type { Value } from './fields.js';
import { comparable, parseQuantity, type Quantity } from './quantity.js';

/** An interval over one dimension; an open end is undefined. */
export interface Range {
  lo?: Quantity;
  loOpen: boolean;
  hi?: Quantity;
  hiOpen: boolean;
}

/** Parses the two ends of "X to Y"; a unit written only after Y applies to X as well ("1 to 3 seconds", "0-24%"). */
function pair(a: string, b: string): [Quantity, Quantity] | undefined {
  const hi = parseQuantity(b);
  if (!hi) return undefined;
  let lo = parseQuantity(a);
  if (lo && lo.dim === 'count' && hi.dim !== 'count') {
    const unit = b.trim().replace(/^[$€£]?[\d.,]+\s?/, '');
    const withUnit = /^[$€£]/.test(b.trim()) ? parseQuantity(b.trim()[0] + a.trim()) : parseQuantity(`${a.trim()} ${unit}`) ?? parseQuantity(`${a.trim()}${unit}`);
    lo = withUnit ?? undefined;
  }
  if (!lo || lo.dim !== hi.dim) return undefined;
  return [lo, hi];
}

/** Reads one phrase as a range, or undefined. */
export function parseRange(text: string): Range | undefined {
  const t = text.trim().replace(/\s+/g, ' ').replace(/[.;]$/, '').toLowerCase();
  let m = /^(?:under|below|less than|fewer than|lower than)\s+(.+)$/.exec(t);
  if (m) {
    const q = parseQuantity(m[1]!);
    return q && { hi: q, hiOpen: true, loOpen: false };
  }
  m = /^(?:up to|at most|no more than)\s+(.+)$/.exec(t) ?? /^(.+?)\s+or (?:less|fewer|below|under)$/.exec(t);
  if (m) {
    const q = parseQuantity(m[1]!);
    return q && { hi: q, hiOpen: false, loOpen: false };
  }
  m = /^(?:over|above|more than|greater than)\s+(.+)$/.exec(t);
  if (m && !/\bup to\b|\band\b|\bto\b/.test(m[1]!)) {
    const q = parseQuantity(m[1]!);
    return q && { lo: q, loOpen: true, hiOpen: false };
  }
  m = /^(?:at least|from)\s+(.+)$/.exec(t);
  if (m && !/\bup to\b|\bto\b/.test(m[1]!)) {
    const q = parseQuantity(m[1]!);
    return q && { lo: q, loOpen: false, hiOpen: false };
  }
  m = /^(.+?)(?:\+| or (?:more|above|higher|greater|over)| and (?:above|over|up))$/.exec(t);
  if (m) {
    const q = parseQuantity(m[1]!);
    return q && { lo: q, loOpen: false, hiOpen: false };
  }
  // Two ends: "X-Y", "X to Y", "X to under Y", "from X up to Y", "above X up to Y", "between X and Y", "two or three".
  m = /^(?:(from|between|above|over|more than)\s+)?(.+?)\s*(?:-|–|—|\bto under\b|\bto below\b|\bup to\b|\bto\b|\band up to\b|\band\b|\bor\b)\s*(.+)$/.exec(t);
  if (m) {
    const joiner = t.slice(0, t.length - m[3]!.length).trimEnd();
    const ends = pair(m[2]!.replace(/\s+and$/, ''), m[3]!);
    if (!ends) return undefined;
    const loOpen = m[1] === 'above' || m[1] === 'over' || m[1] === 'more than';
    const hiOpen = /(?:to under|to below)$/.test(joiner);
    if (/\bor$/.test(joiner) && !(Number.isInteger(ends[0].value) && ends[1].value - ends[0].value === 1)) return undefined;
    return { lo: ends[0], loOpen, hi: ends[1], hiOpen };
  }
  const q = parseQuantity(t);
  return q && { lo: q, loOpen: false, hi: q, hiOpen: false };
}

/** Whether a range holds a number; undefined across dimensions. */
export function inRange(r: Range, q: Quantity): boolean | undefined {
  const lo = r.lo && comparable(q, r.lo);
  const hi = r.hi && comparable(q, r.hi);
  if ((r.lo && !lo) || (r.hi && !hi)) return undefined;
  const eps = (x: number) => 1e-9 * Math.max(1, Math.abs(x));
  if (lo && (r.loOpen ? lo[0] <= lo[1] + eps(lo[0]) : lo[0] < lo[1] - eps(lo[0]))) return false;
  if (hi && (r.hiOpen ? hi[0] >= hi[1] - eps(hi[0]) : hi[0] > hi[1] + eps(hi[0]))) return false;
  return true;
}

/** The text of an option or level that may state its range: the part after "name:" first, then the name. */
function rangeTexts(name: string | undefined, description: unknown): string[] {
  const out: string[] = [];
  if (typeof description === 'string') {
    const colon = description.lastIndexOf(':');
    if (colon >= 0) out.push(description.slice(colon + 1), description.slice(0, colon));
    else out.push(description);
  }
  if (name !== undefined) out.push(name);
  return out;
}

/**
 * Index of the one outcome whose range holds the value, or undefined: when an outcome has no
 * readable range (a description that is no string), when none or several hold it, or when
 * units differ. Dates match outcomes that are dates.
 */
export function matchOutcome(outcomes: readonly { name?: string; description: unknown }[], value: Value): { index: number; ranges: string[] } | undefined {
  const hits: number[] = [];
  const shown: string[] = [];
  for (const [i, o] of outcomes.entries()) {
    if (o.description !== null && o.description !== undefined && typeof o.description !== 'string') return undefined;
    const texts = rangeTexts(o.name, o.description);
    let decided: boolean | undefined;
    for (const text of texts) {
      if (value.kind === 'date') {
        const d: DateValue | undefined = parseDate(text);
        if (d) decided = compareDates(d, value.d) === 0;
      } else if (value.kind === 'number') {
        const r = parseRange(text);
        if (r) decided = inRange(r, value.q);
      }
      if (decided !== undefined) {
        shown.push(text.trim());
        break;
      }
    }
    if (decided === undefined) return undefined;
    if (decided) hits.push(i);
  }
  return hits.length === 1 ? { index: hits[0]!, ranges: shown } : undefined;
}
