/**
 * Counterfactual pairs over dates: an event's date is moved across a deadline (named in the
 * question, or written in the state), in five unambiguous date formats, the question often in
 * another format than the state. "Before" is strict; "by" and "on or before" include the day
 * itself, and the generator puts a date exactly on the deadline now and then to teach that.
 * @module
 */
import type { JsonObject, Question, State } from '../../types.js';
import type { Gold } from '../data.js';
import { addDays, COMPANIES, fieldName, formatDate, person, randomDate, recordId, ref, withDistractors } from './gen-common.js';
import { seeded } from './gen-numbers.js';
import type { DataCase } from './types.js';
import { between, pick, type Random } from './util.js';

interface DateEvent {
  /** Past-tense verb phrase of the event ("was submitted"). */
  did: string;
  /** Noun of the event's date ("submission date"). */
  noun: string;
  field: string;
  texts: readonly ((d: string, r: Random) => string)[];
}

const EVENTS: readonly DateEvent[] = [
  { did: 'was the report submitted', noun: 'submission date', field: 'submitted on', texts: [
    (d, r) => `${person(r)} submitted the quarterly report on ${d}.`,
    (d) => `Report received: ${d}. Reviewer assigned the next day.`,
  ] },
  { did: 'was the invoice paid', noun: 'payment date', field: 'paid on', texts: [
    (d, r) => `Payment for invoice ${recordId('INV', r)} was received on ${d}.`,
    (d, r) => `${pick(COMPANIES, r)} settled the invoice on ${d}.`,
  ] },
  { did: 'was the parcel delivered', noun: 'delivery date', field: 'delivered on', texts: [
    (d) => `Tracking update: delivered to the front desk on ${d}.`,
    (d, r) => `Your order ${recordId('ORD', r)} was delivered on ${d}.`,
  ] },
  { did: 'was the contract signed', noun: 'signature date', field: 'signed on', texts: [
    (d, r) => `The services agreement with ${pick(COMPANIES, r)} was signed on ${d}.`,
    (d) => `Contract status: countersigned, dated ${d}.`,
  ] },
  { did: 'was the application filed', noun: 'filing date', field: 'filed on', texts: [
    (d, r) => `${person(r)} filed the visa application on ${d}.`,
    (d) => `Application lodged on ${d}; reference to follow by email.`,
  ] },
  { did: 'was the bug reported', noun: 'report date', field: 'reported on', texts: [
    (d, r) => `Issue ${recordId('BUG', r)} was opened on ${d} by the QA team.`,
    (d) => `First report of the crash: ${d}.`,
  ] },
];

type Relation = 'before' | 'by' | 'after';
const holds = (d: Date, rel: Relation, deadline: Date) =>
  rel === 'before' ? d.getTime() < deadline.getTime() : rel === 'by' ? d.getTime() <= deadline.getTime() : d.getTime() > deadline.getTime();

const REL_WORDS: Record<Relation, readonly string[]> = {
  before: ['before'],
  by: ['by', 'on or before', 'no later than'],
  after: ['after', 'later than'],
};

/** Question wordings about the event's date against a deadline named in the question. */
const PHRASES: readonly ((e: DateEvent, rel: string, d: string, field: string | null) => string)[] = [
  (e, rel, d) => `${e.did.charAt(0).toUpperCase() + e.did.slice(1)} ${rel} ${d}?`,
  (e, rel, d) => `Is the ${e.noun} ${rel} ${d}?`,
  (e, rel, d) => `Answer yes if the ${e.noun} is ${rel} ${d}.`,
  (e, rel, d) => `The ${e.noun} falls ${rel} ${d}.`,
  (e, rel, d) => `Check whether the ${e.noun} is ${rel} ${d}.`,
  (e, rel, d) => `Given a cut-off of ${d}, ${e.did} ${rel} it?`,
  (e, rel, d) => `Did it happen ${rel} ${d}? (the ${e.noun})`,
  (e, rel, d) => `Is it true that the ${e.noun} is ${rel} ${d}?`,
  (e, rel, d, f) => (f ? `Is ${ref(f)} ${rel} ${d}?` : `From the text, is the ${e.noun} ${rel} ${d}?`),
  (e, rel, d, f) => (f ? `Does ${ref(f)} fall ${rel} ${d}?` : `Going by the message, ${e.did} ${rel} ${d}?`),
];

/** Questions about a deadline written in the state itself ("on time" is "by the deadline"). */
const ON_TIME = [
  (e: DateEvent) => `${e.did.charAt(0).toUpperCase() + e.did.slice(1)} on time?`,
  (e: DateEvent) => `Was the deadline met? (the ${e.noun} against the deadline)`,
  (e: DateEvent) => `Answer yes if the ${e.noun} is no later than the deadline.`,
  (e: DateEvent) => `Is the ${e.noun} on or before the deadline?`,
];
const LATE = [
  (e: DateEvent) => `${e.did.charAt(0).toUpperCase() + e.did.slice(1)} late?`,
  (e: DateEvent) => `Was the deadline missed?`,
  (e: DateEvent) => `Is the ${e.noun} after the deadline?`,
];

export function datePair(index: number, random: Random): DataCase[] {
  const e = pick(EVENTS, random);
  const deadline = randomDate(random);
  const gap = between(1, 40, random);
  const onDeadline = random() < 0.2;
  const late = addDays(deadline, between(1, 40, random));
  const stateStyle = between(0, 4, random);
  const qStyle = random() < 0.5 ? stateStyle : between(0, 4, random);
  const json = random() < 0.4;
  const field = fieldName(e.field, random);
  const deadlineField = fieldName(pick(['deadline', 'due date', 'due by'], random), random);
  const deadlineInState = random() < 0.35;
  const questions: Record<string, Question> = {};
  const golds: ((d: Date) => Gold)[] = [];
  // The early date may fall on the deadline itself, except under a strict "before" (the gold
  // would not flip).
  let early = onDeadline ? deadline : addDays(deadline, -gap);
  if (deadlineInState) {
    const lateQ = random() < 0.4;
    questions.q1 = { type: 'noul', instructions: (lateQ ? pick(LATE, random) : pick(ON_TIME, random))(e) };
    golds.push((d) => (lateQ ? d.getTime() > deadline.getTime() : d.getTime() <= deadline.getTime()));
  } else {
    const rel = pick(['before', 'by', 'after'] as const, random);
    questions.q1 = { type: 'noul', instructions: pick(PHRASES, random)(e, pick(REL_WORDS[rel], random), formatDate(deadline, qStyle), json ? field : null) };
    if (rel === 'before' && onDeadline) early = addDays(deadline, -gap);
    golds.push((d) => holds(d, rel, deadline));
  }
  // A second date far from both: its gold is the same for both cases.
  const far = addDays(deadline, (random() < 0.5 ? -1 : 1) * between(120, 900, random));
  const rel2 = pick(['before', 'after'] as const, random);
  questions.q2 = { type: 'noul', instructions: pick(PHRASES, random)(e, rel2, formatDate(far, between(0, 4, random)), json ? field : null) };
  golds.push((d) => holds(d, rel2, far));
  const textSeed = Math.floor(random() * 2 ** 31);
  const order = random() < 0.5 ? [early, late] : [late, early];
  return order.map((d, k) => {
    const shown = formatDate(d, stateStyle);
    let state: State;
    if (json) {
      const rec: JsonObject = { [field]: shown };
      if (deadlineInState) rec[deadlineField] = formatDate(deadline, stateStyle);
      state = withDistractors(rec, seeded(textSeed));
    } else {
      state = pick(e.texts, seeded(textSeed))(shown, seeded(textSeed + 1));
      if (deadlineInState) state += ` The deadline was ${formatDate(deadline, stateStyle)}.`;
    }
    const gold: Record<string, Gold> = {};
    golds.forEach((g, i) => (gold[`q${i + 1}`] = g(d)));
    return { id: `generated/dates/${index}${'ab'[k]}`, source: 'generated/dates', state, questions, gold, pair: `gen:dates:${index}` };
  });
}
