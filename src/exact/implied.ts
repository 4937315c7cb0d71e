/**
 * Comparisons whose wording implies the field they compare: a comparative adjective ("Is the
 * customer older than 30?" is the customer's age; heavier, lighter, taller, cheaper, more
 * expensive) and a person against a plain whole number ("Is the patient over 40?" is the
 * patient's age). The field is then bound as one named with its owner (label-binding.ts).
 * @module
 */
import type { Quantity } from './quantity.js';
import type { Cmp, Operand, Query } from './query.js';

/** Reads a noun phrase as an operand (parse.ts's `subject`). */
type Reader = (text: string) => Operand | undefined;

/**
 * Comparative adjectives that say which field they compare ("older than 30" compares an age):
 * the field's noun, the comparator, and the constant's dimension besides a plain number. An age
 * is a number of years at most 150, bare or with "years (old)"; a bare one binds only an age
 * field without a unit (`age_days` may count an order's age in days: "older than 30" is then
 * unclear). "older than 2015" may mean a year and "older than 30 days" may set a person's age in
 * years against days: both abstain.
 */
const IMPLIED: Record<string, { noun: string; cmp: Cmp; dim?: string }> = {
  older: { noun: 'age', cmp: 'gt' },
  younger: { noun: 'age', cmp: 'lt' },
  heavier: { noun: 'weight', cmp: 'gt', dim: 'mass' },
  lighter: { noun: 'weight', cmp: 'lt', dim: 'mass' },
  taller: { noun: 'height', cmp: 'gt', dim: 'length' },
  'more expensive': { noun: 'price', cmp: 'gt', dim: 'money' },
  'less expensive': { noun: 'price', cmp: 'lt', dim: 'money' },
  pricier: { noun: 'price', cmp: 'gt', dim: 'money' },
  cheaper: { noun: 'price', cmp: 'lt', dim: 'money' },
};
/** A year in seconds, calendar-free (365.25 days). */
const YEAR_S = 365.25 * 86400;
const IMPLIED_RE = new RegExp(String.raw`^(.+?)\s+(${Object.keys(IMPLIED).join('|')})\s+than\s+(.+)$`, 'i');

/**
 * "Is the customer older than 30?", "Is Biscuit older than 5?", "Is the parcel heavier than
 * 2 kg?": the subject's field that the adjective names ("the customer's age"), bound like any
 * field named with its owner (label-binding.ts), against a constant or a reference. Null when
 * the wording has no such adjective; undefined when it has one but cannot be read exactly.
 */
export function impliedComparison(t: string, subject: Reader, constantOrRef: (text: string, allowWord: boolean) => Operand | undefined): Query | undefined | null {
  // (parse.ts passes its readers in: this module must not import parse.ts back.)
  const m = IMPLIED_RE.exec(t);
  if (!m) return null;
  const { noun, cmp, dim } = IMPLIED[m[2]!.toLowerCase()]!;
  const owner = subject(m[1]!);
  const rhs = noun === 'age' ? m[3]!.replace(/\s+(?:years?|yrs?)(?:\s+old|\s+of age)?$/i, '') : m[3]!;
  const inYears = rhs !== m[3];
  let right = constantOrRef(rhs, false);
  let plain = false;
  if (owner?.kind !== 'label' || !right || (right.kind !== 'const' && right.kind !== 'ref')) return undefined;
  if (right.kind === 'const') {
    const q = right.q;
    const fits = q.dim === 'count' ? noun !== 'age' || (q.value >= 0 && q.value <= 150) : dim !== undefined && (q.dim === dim || q.dim.startsWith(`${dim}:`));
    if (!fits) return undefined;
    // An age "in years" is a duration (`age_days` compares in days); a bare one binds only a field without a unit.
    if (noun === 'age' && inYears) right = years(q);
    else if (noun === 'age') plain = true;
  }
  return { kind: 'compare', left: { kind: 'label', phrase: `${owner.phrase}'s ${noun}`, ...(plain ? { plain } : {}) }, cmp, right };
}

/**
 * People whose plain number is their age: "Is the patient over 40?", "Is the passenger under
 * 65?". Roles whose numbers are often something else (a driver's speed, a seller's rating) are
 * left out.
 */
const AGED = new Set([
  'patient', 'passenger', 'traveller', 'traveler', 'applicant', 'candidate', 'participant', 'registrant', 'attendee', 'resident', 'person', 'child',
  'student', 'member', 'customer', 'client', 'user', 'guest', 'employee', 'visitor', 'player',
]);

/**
 * A person (the/this + one noun of AGED) over, under, at least or at most a whole number up to
 * 150: their age, in years, so only an age field without a unit binds (not `age_days`).
 */
export function personAge(left: Operand, cmp: Cmp, right: Operand): Query | undefined {
  if (left.kind !== 'label' || right.kind !== 'const' || cmp === 'eq' || cmp === 'ne') return undefined;
  const m = /^(?:the|this)\s+([a-z]+)$/i.exec(left.phrase);
  const q = right.q;
  if (!m || !AGED.has(m[1]!.toLowerCase()) || q.dim !== 'count' || !Number.isInteger(q.value) || q.value < 0 || q.value > 150) return undefined;
  return { kind: 'compare', left: { kind: 'label', phrase: `${left.phrase}'s age`, plain: true }, cmp, right };
}

/** An age constant written in years: a duration, so `age` and `age_years` count years and `age_days` compares in days. */
function years(q: Quantity): Operand {
  return { kind: 'const', q: { value: q.value * YEAR_S, dim: 'time', factor: YEAR_S, text: `${q.text} years` } };
}
