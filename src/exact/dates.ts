/**
 * Calendar dates as states and questions write them: ISO (`2025-03-01`, with or without a time),
 * `1 March 2025`, `March 1, 2025`, `1 Mar`, `Mar 1` (no year: the year of the other operand),
 * and weekday and month names. Dates are compared as whole days (UTC day numbers); a time of
 * day is compared only when both sides have one.
 * @module
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A day, maybe with a time; `year` undefined when the text gave none. */
export interface DateValue {
  year?: number;
  month: number;
  day: number;
  /** Minutes since midnight, when a time was given. */
  minutes?: number;
  text: string;
}

/** Month number (1-12) of a month name or its three-letter abbreviation, else undefined. */
export function monthOf(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return undefined;
  const i = MONTHS.findIndex((m) => m === w || (w.length >= 3 && m.startsWith(w) && (w.length === 3 || w === 'sept')));
  return i < 0 ? undefined : i + 1;
}

function valid(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY_MONTH = /^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?(?:\s+(\d{4}))?$/i;
const MONTH_DAY = /^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}))?$/i;

/**
 * Parses a whole string as one date, or undefined. Only unambiguous forms: no `03/04/2025`
 * (day-month or month-day order cannot be told).
 */
export function parseDate(text: string): DateValue | undefined {
  const t = text.trim().replace(/[.?!]+$/, '');
  let m = ISO.exec(t);
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!valid(year, month, day)) return undefined;
    // A time with an offset other than UTC would move the day; keep only the date then.
    const minutes = m[4] !== undefined && !/[+-]\d{2}:?\d{2}$/.test(t) ? Number(m[4]) * 60 + Number(m[5]) : undefined;
    return { year, month, day, ...(minutes !== undefined ? { minutes } : {}), text: t };
  }
  m = DAY_MONTH.exec(t);
  if (m) {
    const month = monthOf(m[2]!);
    if (month === undefined) return undefined;
    const year = m[3] ? Number(m[3]) : undefined;
    if (!valid(year ?? 2024, month, Number(m[1]))) return undefined;
    return { ...(year !== undefined ? { year } : {}), month, day: Number(m[1]), text: t };
  }
  m = MONTH_DAY.exec(t);
  if (m) {
    const month = monthOf(m[1]!);
    if (month === undefined) return undefined;
    const year = m[3] ? Number(m[3]) : undefined;
    if (!valid(year ?? 2024, month, Number(m[2]))) return undefined;
    return { ...(year !== undefined ? { year } : {}), month, day: Number(m[2]), text: t };
  }
  return undefined;
}

/** Days since 1970-01-01 (UTC); the year must be known. */
export function dayNumber(d: DateValue & { year: number }): number {
  return Math.round(Date.UTC(d.year, d.month - 1, d.day) / 86400000);
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekday(d: DateValue & { year: number }): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
}

/**
 * Compares two dates: negative, zero or positive, or undefined when the years are unknown on
 * both sides. A side without a year takes the other's; times count only when both have one.
 */
export function compareDates(a: DateValue, b: DateValue): number | undefined {
  const year = a.year ?? b.year;
  if (year === undefined) return undefined;
  const da = dayNumber({ ...a, year: a.year ?? year });
  const db = dayNumber({ ...b, year: b.year ?? year });
  if (da !== db) return da - db;
  if (a.minutes !== undefined && b.minutes !== undefined) return a.minutes - b.minutes;
  return 0;
}

/** Whole days from `a` to `b` (positive when b is later), or undefined without a year. */
export function daysBetween(a: DateValue, b: DateValue): number | undefined {
  const year = a.year ?? b.year;
  if (year === undefined) return undefined;
  return dayNumber({ ...b, year: b.year ?? year }) - dayNumber({ ...a, year: a.year ?? year });
}

/** Adds calendar months (day clipped to the month's end, as contracts count). */
export function addMonths(d: DateValue & { year: number }, months: number): DateValue & { year: number } {
  const total = d.year * 12 + (d.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { year, month, day: Math.min(d.day, last), text: '' };
}
