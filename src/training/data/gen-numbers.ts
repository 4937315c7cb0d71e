/**
 * Counterfactual pairs over numbers: one quantity (an amount with its currency, a count, an
 * age, a percentage, a duration, a weight, a distance, a temperature) is moved across the
 * threshold a question names, in a text or a JSON state; everything else stays. Both cases ask
 * the same questions: the threshold question (its gold flips), a second threshold further away
 * (its gold may stay), and sometimes a rubric of ranges. Golds are computed from the value as
 * displayed, with exact comparison words ("at least" includes the threshold, "over" does not).
 * @module
 */
import type { JsonObject, Question, State } from '../../types.js';
import { rng, type Gold } from '../data.js';
import { COMPANIES, compare, COMPARATOR_WORDS, fieldName, formatNumber, person, recordId, ref, withDistractors, type Comparator } from './gen-common.js';
import type { DataCase } from './types.js';
import { pick, type Random } from './util.js';

interface Unit {
  /** Displays a number with its unit. */
  show: (v: number) => string;
  /** JSON: the unit's own field, if any ("currency": "EUR"). */
  field?: [string, string];
}

const CURRENCIES: readonly Unit[] = [
  { show: (v) => `$${formatNumber(v, 2)}`, field: ['currency', 'USD'] },
  { show: (v) => `${formatNumber(v, 2)} USD`, field: ['currency', 'USD'] },
  { show: (v) => `€${formatNumber(v, 2)}`, field: ['currency', 'EUR'] },
  { show: (v) => `${formatNumber(v, 2)} EUR`, field: ['currency', 'EUR'] },
  { show: (v) => `£${formatNumber(v, 2)}`, field: ['currency', 'GBP'] },
  { show: (v) => `CHF ${formatNumber(v, 2)}`, field: ['currency', 'CHF'] },
];
/** Thresholds in questions drop the cents when they are round. */
const roundShow = (u: Unit, v: number) => u.show(v).replace(/\.00\b/, '');

const suffix = (s: string, dec = 0): Unit => ({ show: (v) => `${formatNumber(v, dec)}${s}` });

interface Quantity {
  kind: string;
  /** What the question calls it ("the invoice total"). */
  noun: string;
  /** Words of its JSON field name. */
  field: string;
  units: readonly Unit[];
  lo: number;
  hi: number;
  decimals: number;
  /** Text states: the sentence carrying the value (`x` is the displayed value). */
  texts: readonly ((x: string, r: Random) => string)[];
}

const Q: readonly Quantity[] = [
  { kind: 'amount', noun: 'invoice total', field: 'invoice total', units: CURRENCIES, lo: 40, hi: 60000, decimals: 2, texts: [
    (x, r) => `Invoice ${recordId('INV', r)} from ${pick(COMPANIES, r)} comes to ${x}, payable within 30 days.`,
    (x, r) => `${pick(COMPANIES, r)} billed us ${x} for last month's services.`,
    (x) => `Please find attached our invoice. The total due is ${x}.`,
  ] },
  { kind: 'amount', noun: 'refund requested', field: 'refund amount', units: CURRENCIES, lo: 10, hi: 5000, decimals: 2, texts: [
    (x, r) => `Hi, this is ${person(r)}. I'd like a refund of ${x} for the damaged blender.`,
    (x) => `The customer asks us to refund ${x} because the booking was cancelled.`,
    (x) => `Refund request: ${x}, reason: item never arrived.`,
  ] },
  { kind: 'amount', noun: 'transfer amount', field: 'transfer amount', units: CURRENCIES, lo: 100, hi: 250000, decimals: 2, texts: [
    (x, r) => `Outgoing wire of ${x} to ${pick(COMPANIES, r)} was queued this morning.`,
    (x, r) => `${person(r)} authorised a transfer of ${x} from the operating account.`,
  ] },
  { kind: 'amount', noun: 'monthly salary offered', field: 'monthly salary', units: CURRENCIES, lo: 1500, hi: 15000, decimals: 0 as number, texts: [
    (x) => `We are pleased to offer you the position at a monthly salary of ${x} gross.`,
    (x, r) => `Offer for ${person(r)}: ${x} per month, starting in September.`,
  ] },
  { kind: 'count', noun: 'number of affected users', field: 'affected users', units: [suffix(''), suffix(' users')], lo: 1, hi: 5000, decimals: 0, texts: [
    (x) => `Outage report: login failures hit ${x.replace(/ users$/, '')} users between 09:10 and 09:55.`,
    (x) => `So far ${x.replace(/ users$/, '')} users have reported that exports fail.`,
  ] },
  { kind: 'count', noun: 'number of items in the order', field: 'item count', units: [suffix(''), suffix(' items')], lo: 1, hi: 60, decimals: 0, texts: [
    (x, r) => `Order ${recordId('ORD', r)} contains ${x.replace(/ items$/, '')} items and ships from the Leeds warehouse.`,
    (x) => `Your basket has ${x.replace(/ items$/, '')} items in it.`,
  ] },
  { kind: 'count', noun: 'number of failed login attempts', field: 'failed logins', units: [suffix('')], lo: 0, hi: 40, decimals: 0, texts: [
    (x, r) => `Security log: account ${person(r)} had ${x} failed login attempts in the last hour.`,
    (x) => `We saw ${x} failed sign-in attempts on this account overnight.`,
  ] },
  { kind: 'count', noun: 'number of seats booked', field: 'seats booked', units: [suffix('')], lo: 1, hi: 400, decimals: 0, texts: [
    (x, r) => `${pick(COMPANIES, r)} has booked ${x} seats for the annual conference.`,
    (x) => `Group booking confirmed: ${x} seats on the 7:40 train.`,
  ] },
  { kind: 'age', noun: 'age of the applicant', field: 'applicant age', units: [suffix(''), suffix(' years')], lo: 12, hi: 90, decimals: 0, texts: [
    (x, r) => `The applicant, ${person(r)}, is ${x.replace(/ years$/, '')} years old and lives in Porto.`,
    (x, r) => `${person(r)} (age ${x.replace(/ years$/, '')}) applied for the travel insurance.`,
  ] },
  { kind: 'percent', noun: 'CPU usage', field: 'cpu usage', units: [suffix('%'), suffix(' percent')], lo: 1, hi: 100, decimals: 0, texts: [
    (x, r) => `Alert on host ${recordId('web', r)}: CPU usage at ${x} for the last 15 minutes.`,
    (x) => `Monitoring shows the database server running at ${x} CPU.`,
  ] },
  { kind: 'percent', noun: 'discount', field: 'discount', units: [suffix('%'), suffix(' percent')], lo: 1, hi: 80, decimals: 0, texts: [
    (x) => `Good news: your loyalty coupon gives you ${x} off your next order.`,
    (x, r) => `${pick(COMPANIES, r)} agreed to a ${x} discount on the renewal.`,
  ] },
  { kind: 'percent', noun: 'battery level', field: 'battery level', units: [suffix('%')], lo: 1, hi: 100, decimals: 0, texts: [
    (x) => `Device status: battery at ${x}, last synced two minutes ago.`,
    (x) => `The tracker reports a battery level of ${x}.`,
  ] },
  { kind: 'duration', noun: 'wait time', field: 'wait time minutes', units: [suffix(' minutes')], lo: 1, hi: 240, decimals: 0, texts: [
    (x) => `I have been on hold for ${x} now and nobody has picked up.`,
    (x) => `Current wait time at the clinic: ${x}.`,
  ] },
  { kind: 'duration', noun: 'downtime', field: 'downtime hours', units: [suffix(' hours')], lo: 1, hi: 72, decimals: 0, texts: [
    (x) => `Incident summary: the payment service was down for ${x} in total.`,
    (x, r) => `Post-mortem for ${recordId('INC', r)}: ${x} of downtime, root cause a full disk.`,
  ] },
  { kind: 'duration', noun: 'delivery delay', field: 'delay days', units: [suffix(' days')], lo: 1, hi: 60, decimals: 0, texts: [
    (x) => `The parcel arrived ${x} later than promised.`,
    (x, r) => `Shipment ${recordId('SHP', r)} is running ${x} behind schedule.`,
  ] },
  { kind: 'weight', noun: 'weight of the parcel', field: 'parcel weight kg', units: [suffix(' kg', 1)], lo: 0.2, hi: 60, decimals: 1, texts: [
    (x) => `The parcel weighs ${x} and measures 40 x 30 x 20 cm.`,
    (x, r) => `Label for ${person(r)}: one box, ${x}.`,
  ] },
  { kind: 'distance', noun: 'distance to the site', field: 'distance km', units: [suffix(' km', 1)], lo: 0.5, hi: 800, decimals: 1, texts: [
    (x) => `The client's site is ${x} from our nearest depot.`,
    (x, r) => `Route planned for ${person(r)}: ${x} each way.`,
  ] },
  { kind: 'temperature', noun: 'temperature in the cold room', field: 'cold room temp c', units: [suffix(' °C', 1)], lo: -25, hi: 15, decimals: 1, texts: [
    (x) => `Sensor reading at 06:00: cold room at ${x}.`,
    (x) => `The storage log shows the cold room at ${x} this morning.`,
  ] },
];

const roundTo = (v: number, dec: number) => Math.round(v * 10 ** dec) / 10 ** dec;

/**
 * A round threshold inside the quantity's range, with no more decimals than the quantity
 * displays (so the threshold a question shows is the one its gold was computed with).
 */
function roundThreshold(lo: number, hi: number, decimals: number, random: Random): number {
  const t = lo + (0.15 + 0.7 * random()) * (hi - lo);
  const mag = 10 ** Math.floor(Math.log10(Math.max(Math.abs(t), 1)));
  const step = Math.max(pick([mag, mag / 2, mag / 4], random), 10 ** -decimals);
  return roundTo(Math.round(t / step) * step || step, decimals);
}


type Phrase = (noun: string, cmp: string, t: string, field: string | null) => string;

/** Threshold questions, ten or more wordings; `field` is set for JSON states. */
const PHRASES: readonly Phrase[] = [
  (n, c, t) => `Is the ${n} ${c} ${t}?`,
  (n, c, t) => `Answer yes if the ${n} is ${c} ${t}.`,
  (n, c, t) => `The ${n} is ${c} ${t}.`,
  (n, c, t) => `Check whether the ${n} is ${c} ${t}.`,
  (n, c, t) => `Would you say the ${n} is ${c} ${t}?`,
  (n, c, t) => `${n.charAt(0).toUpperCase() + n.slice(1)} ${c} ${t}?`,
  (n, c, t) => `Does the ${n} come to ${c} ${t}?`,
  (n, c, t) => `Is it true that the ${n} is ${c} ${t}?`,
  (n, c, t, f) => (f ? `Is ${ref(f)} ${c} ${t}?` : `Going by the message, is the ${n} ${c} ${t}?`),
  (n, c, t, f) => (f ? `Is the value of ${ref(f)} ${c} ${t}?` : `From the text, is the ${n} ${c} ${t}?`),
];

function thresholdQuestion(q: Quantity, unit: Unit, cmp: Comparator, t: number, field: string | null, random: Random): Question {
  const tShown = roundShow(unit, t);
  const text = pick(PHRASES, random)(q.noun, pick(COMPARATOR_WORDS[cmp], random), tShown, field);
  return { type: 'noul', instructions: text };
}

/** A rubric of ranges: boundaries b1 < b2 < ...; level i holds values from b_i up to b_{i+1}. */
function rangeRubric(q: Quantity, unit: Unit, bounds: readonly number[]): string[] {
  const s = (v: number) => roundShow(unit, v);
  return [
    `under ${s(bounds[0]!)}`,
    ...bounds.slice(1).map((b, i) => `${s(bounds[i]!)} up to but not including ${s(b)}`),
    `${s(bounds[bounds.length - 1]!)} or more`,
  ];
}

function levelIn(v: number, bounds: readonly number[]): number {
  let i = 0;
  while (i < bounds.length && v >= bounds[i]!) i++;
  return i;
}

/** One pair group: two cases (value below and above the threshold). */
export function numberPair(index: number, random: Random): DataCase[] {
  const q = pick(Q, random);
  const unit = pick(q.units, random);
  const t = roundThreshold(q.lo, q.hi, q.decimals, random);
  const cmp = pick(['gt', 'ge', 'lt', 'le'] as const, random);
  // Two values on either side; now and then one sits exactly on the threshold.
  const spread = 0.03 + 0.4 * random();
  const minStep = 10 ** -q.decimals;
  let above = roundTo(Math.max(t + minStep, t * (1 + spread) + (t < 0 ? -t * 2 * spread : 0)), q.decimals);
  let below = roundTo(Math.min(t - minStep, t * (1 - spread) - (t < 0 ? -t * 2 * spread : 0)), q.decimals);
  // Now and then a value sits exactly on the threshold, on the side the comparison puts it
  // ("at least 50" holds for 50, "over 50" does not), so that the gold still flips.
  if (random() < 0.2) (cmp === 'ge' || cmp === 'lt' ? (above = t) : (below = t));
  if (below < q.lo && q.lo >= 0) below = roundTo(Math.max(q.lo, 0), q.decimals);
  if (below === above) return [];
  const json = random() < 0.45;
  const field = fieldName(q.field, random);
  const text = pick(q.texts, random);
  const t2 = roundThreshold(q.lo, q.hi, q.decimals, random);
  const cmp2 = pick(['gt', 'ge', 'lt', 'le'] as const, random);
  // Range boundaries: the thresholds, kept only when at least 8% of the scale apart.
  const bounds = [t, t2, roundThreshold(q.lo, q.hi, q.decimals, random)]
    .sort((a, b) => a - b)
    .filter((b, i, all) => i === 0 || b - all[i - 1]! >= 0.08 * (q.hi - q.lo));
  const withRubric = random() < 0.6 && bounds.length >= 2;
  const questions: Record<string, Question> = {
    q1: thresholdQuestion(q, unit, cmp, t, json ? field : null, random),
    q2: thresholdQuestion(q, unit, cmp2, t2, json ? field : null, random),
  };
  if (withRubric) questions.q3 = { type: 'score', instructions: pick([`Which range is the ${q.noun} in?`, `Rate the ${q.noun}.`, `How large is the ${q.noun}?`, `Bucket the ${q.noun}.`], random), criteria: rangeRubric(q, unit, bounds) };
  const textSeed = Math.floor(random() * 2 ** 31);
  const extraSeed = Math.floor(random() * 2 ** 31);
  const order = random() < 0.5 ? [below, above] : [above, below];
  return order.map((v, k) => {
    const gold: Record<string, Gold> = { q1: compare(v, cmp, t), q2: compare(v, cmp2, t2) };
    if (withRubric) gold.q3 = levelIn(v, bounds);
    let state: State;
    // The same invented details in both cases: only the value differs.
    if (json) {
      const rec: JsonObject = { [field]: v };
      if (unit.field) rec[unit.field[0]] = unit.field[1];
      state = withDistractors(rec, seeded(extraSeed));
    } else {
      state = text(unit.show(v), seeded(textSeed));
    }
    return { id: `generated/numbers/${index}${'ab'[k]}`, source: 'generated/numbers', state, questions, gold, pair: `gen:numbers:${index}` };
  });
}

/** A fresh source from a seed, for details that both cases of a pair must share (data.ts's mulberry32). */
export function seeded(seed: number): Random {
  return rng(seed);
}

