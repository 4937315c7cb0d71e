/**
 * Counterfactual pairs over records and lists:
 * - a JSON field's value changed (a status enum, a plan or priority, a boolean flag), asked with
 *   natural questions whose truth set of values is written down, backtick questions on the
 *   field, and a choice of the value;
 * - an item added to or removed from a list (attendees, allergies, tags, permissions), asked
 *   whether it is there, whether it is missing (so absent words answer yes as often as no), and
 *   how many items there are;
 * - two fields made equal or different (addresses, amounts, versions, e-mails).
 * @module
 */
import type { JsonObject, JsonValue, Question, State } from '../../types.js';
import type { Gold } from '../data.js';
import { fieldName, person, PEOPLE, recordId, ref, withDistractors } from './gen-common.js';
import { seeded } from './gen-numbers.js';
import type { DataCase } from './types.js';
import { between, pick, sample, shuffledBy, type Random } from './util.js';

interface EnumField {
  record: string;
  field: string;
  values: readonly string[];
  /** Natural questions and the values for which each is yes. */
  asks: readonly [string, readonly string[]][];
  choice: readonly string[];
}

const ENUMS: readonly EnumField[] = [
  { record: 'order', field: 'status', values: ['pending', 'processing', 'shipped', 'delivered', 'cancelled', 'returned'], asks: [
    ['Has the order been cancelled?', ['cancelled']],
    ['Has the order left the warehouse?', ['shipped', 'delivered', 'returned']],
    ['Has the order been delivered?', ['delivered', 'returned']],
    ['Is the order still waiting to be shipped?', ['pending', 'processing']],
    ['Was the order sent back?', ['returned']],
  ], choice: ['What is the status of the order?', 'Where is this order in the process?'] },
  { record: 'ticket', field: 'status', values: ['open', 'in progress', 'waiting on customer', 'resolved', 'closed'], asks: [
    ['Is the ticket closed?', ['closed']],
    ['Is someone still working on this ticket or waiting for a reply?', ['open', 'in progress', 'waiting on customer']],
    ['Is the team waiting for the customer?', ['waiting on customer']],
    ['Has the ticket been resolved or closed?', ['resolved', 'closed']],
  ], choice: ['What state is the ticket in?', 'Which status does the ticket have?'] },
  { record: 'ticket', field: 'priority', values: ['low', 'medium', 'high', 'urgent'], asks: [
    ['Is the ticket marked urgent?', ['urgent']],
    ['Is the priority high or urgent?', ['high', 'urgent']],
    ['Is this a low-priority ticket?', ['low']],
  ], choice: ['What priority does the ticket have?'] },
  { record: 'account', field: 'status', values: ['active', 'suspended', 'closed', 'pending verification'], asks: [
    ['Is the account active?', ['active']],
    ['Has the account been suspended?', ['suspended']],
    ['Is the account still awaiting verification?', ['pending verification']],
  ], choice: ['What is the account status?'] },
  { record: 'subscription', field: 'plan', values: ['free', 'basic', 'pro', 'enterprise'], asks: [
    ['Is the customer on a paid plan?', ['basic', 'pro', 'enterprise']],
    ['Does the customer have an enterprise subscription?', ['enterprise']],
    ['Is this a free account?', ['free']],
  ], choice: ['Which plan is the customer on?'] },
  { record: 'payment', field: 'status', values: ['paid', 'unpaid', 'refunded', 'failed'], asks: [
    ['Has the payment gone through?', ['paid', 'refunded']],
    ['Was the money returned to the customer?', ['refunded']],
    ['Did the payment fail?', ['failed']],
    ['Is the payment still outstanding?', ['unpaid']],
  ], choice: ['What happened to the payment?'] },
];

interface Flag {
  record: string;
  field: string;
  yes: readonly string[];
  no: readonly string[];
}

const FLAGS: readonly Flag[] = [
  { record: 'user', field: 'email verified', yes: ['Has the user verified their e-mail address?', 'Is the e-mail address confirmed?'], no: ['Is the e-mail address still unverified?'] },
  { record: 'subscription', field: 'auto renew', yes: ['Will the subscription renew automatically?'], no: ['Has automatic renewal been turned off?'] },
  { record: 'account', field: 'two factor enabled', yes: ['Is two-factor authentication on for this account?'], no: ['Does the account lack two-factor authentication?'] },
  { record: 'order', field: 'gift wrap', yes: ['Should the order be gift-wrapped?'], no: ['Is the order going out without gift wrap?'] },
  { record: 'customer', field: 'newsletter opt in', yes: ['Did the customer agree to receive the newsletter?'], no: ['Has the customer declined the newsletter?'] },
  { record: 'invoice', field: 'is paid', yes: ['Has the invoice been paid?'], no: ['Is the invoice still unpaid?'] },
];

/** A JSON field's value changed between the two cases. */
export function fieldPair(index: number, random: Random): DataCase[] {
  const extraSeed = Math.floor(random() * 2 ** 31);
  const base: JsonObject = {};
  const questions: Record<string, Question> = {};
  const golds: ((v: JsonValue) => Gold)[] = [];
  let field: string;
  let values: [JsonValue, JsonValue];
  if (random() < 0.6) {
    const e = pick(ENUMS, random);
    field = fieldName(e.field, random);
    const [ask, truth] = pick(e.asks, random);
    const yesValue = pick(truth, random);
    const noValue = pick(e.values.filter((v) => !truth.includes(v)), random);
    values = [yesValue, noValue];
    base[fieldName(`${e.record} id`, random)] = recordId(e.record.slice(0, 3).toUpperCase(), random);
    questions.q1 = { type: 'noul', instructions: ask };
    golds.push((v) => truth.includes(String(v)));
    // Half of the records also keep the value before the last change: a value named in the
    // state that is not the answer (to the choice, or to a question about that value).
    const previous = random() < 0.5 ? pick(e.values.filter((v) => v !== yesValue && v !== noValue), random) : null;
    if (previous !== null) base[fieldName(`previous ${e.field}`, random)] = previous;
    const exact = random() < 0.6 ? pick(previous !== null ? [yesValue, noValue, previous] : [yesValue, noValue], random) : pick(e.values, random);
    questions.q2 = { type: 'noul', instructions: pick([`Is ${ref(field)} "${exact}"?`, `Does ${ref(field)} equal "${exact}"?`, `Is the ${e.record}'s ${e.field} ${exact}?`], random) };
    golds.push((v) => v === exact);
    if (random() < 0.6) {
      const opts = shuffledBy([...new Set([yesValue, noValue, ...sample(e.values, between(1, e.values.length, random), random)])], random);
      questions.q3 = { type: 'choice', instructions: pick(e.choice, random), criteria: Object.fromEntries(opts.map((o) => [o, null])) };
      golds.push((v) => String(v));
    }
  } else {
    const f = pick(FLAGS, random);
    field = fieldName(f.field, random);
    values = [true, false];
    base[fieldName(`${f.record} id`, random)] = recordId(f.record.slice(0, 3).toUpperCase(), random);
    const positive = random() < 0.6;
    questions.q1 = { type: 'noul', instructions: pick(positive ? f.yes : f.no, random) };
    golds.push((v) => (positive ? v === true : v === false));
    questions.q2 = { type: 'noul', instructions: pick([`Is ${ref(field)} true?`, `Is ${ref(field)} set to false?`, `Is ${ref(field)} set to true?`], random) };
    const q2 = String(questions.q2.instructions);
    golds.push((v) => (q2.includes('false') ? v === false : v === true));
  }
  const order = random() < 0.5 ? values : [values[1], values[0]];
  return order.map((v, k) => {
    const state = withDistractors({ ...base, [field]: v }, seeded(extraSeed));
    const gold: Record<string, Gold> = {};
    golds.forEach((g, i) => (gold[`q${i + 1}`] = g(v)));
    return { id: `generated/fields/${index}${'ab'[k]}`, source: 'generated/fields', state, questions, gold, pair: `gen:fields:${index}` };
  });
}

interface ListKind {
  name: string;
  field: string;
  /** The list an item moves to in "moved" pairs (a name in the state that does not answer yes). */
  other: string;
  otherText: string;
  items: readonly string[];
  has: readonly ((x: string) => string)[];
  missing: readonly ((x: string) => string)[];
  count: string;
  text: (items: string, r: Random) => string;
}

const LISTS: readonly ListKind[] = [
  { name: 'attendees', field: 'attendees', other: 'declined', otherText: 'Declined', items: PEOPLE, has: [(x) => `Is ${x} attending?`, (x) => `Is ${x} among the attendees?`, (x) => `Will ${x} be at the meeting?`],
    missing: [(x) => `Is ${x} missing from the attendee list?`, (x) => `Is ${x} not among the attendees?`], count: 'How many people are attending?',
    text: (l, r) => `Planning meeting on ${pick(['Monday', 'Thursday', 'Friday'], r)} at 10:00. Attendees: ${l}.` },
  { name: 'allergies', field: 'allergies', other: 'tolerated without reaction', otherText: 'Tested and tolerated', items: ['peanuts', 'shellfish', 'gluten', 'milk', 'eggs', 'soy', 'sesame', 'tree nuts', 'penicillin', 'latex'],
    has: [(x) => `Is the patient allergic to ${x}?`, (x) => `Does the record list an allergy to ${x}?`, (x) => `Is ${x} among the allergies?`],
    missing: [(x) => `Is ${x} absent from the patient's allergies?`, (x) => `Is ${x} not among the allergies?`], count: 'How many allergies are recorded?',
    text: (l, r) => `Patient ${person(r)}, admitted for a sprained ankle. Known allergies: ${l}.` },
  { name: 'tags', field: 'tags', other: 'removed tags', otherText: 'Tags removed earlier', items: ['urgent', 'billing', 'bug', 'vip', 'refund', 'security', 'duplicate', 'feature request', 'outage', 'legal'],
    has: [(x) => `Is the ticket tagged "${x}"?`, (x) => `Does the ticket carry the ${x} tag?`, (x) => `Is "${x}" in the tags?`],
    missing: [(x) => `Is the "${x}" tag missing?`, (x) => `Is "${x}" not in the tags?`], count: 'How many tags does the ticket have?',
    text: (l, r) => `Ticket ${recordId('T', r)} from ${person(r)}. Tags: ${l}.` },
  { name: 'permissions', field: 'permissions', other: 'revoked permissions', otherText: 'Revoked', items: ['read', 'write', 'delete', 'admin', 'billing', 'export', 'invite users', 'manage keys'],
    has: [(x) => `Does the user have the ${x} permission?`, (x) => `Does the user hold "${x}" access?`, (x) => `Is "${x}" among the granted permissions?`],
    missing: [(x) => `Does the user lack the ${x} permission?`, (x) => `Is ${x} not among the permissions?`], count: 'How many permissions are granted?',
    text: (l, r) => `Access review for ${person(r)}: granted permissions are ${l}.` },
];

const joinList = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);
const COUNT_WORDS = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];

/** An item added to (or removed from) a list between the two cases. */
export function listPair(index: number, random: Random): DataCase[] {
  const kind = pick(LISTS, random);
  const items = sample(kind.items, between(2, 6, random), random);
  const target = items[0]!;
  const rest = items.slice(1);
  const withIt = shuffledBy(items, random);
  const without = withIt.filter((x) => x !== target);
  const other = pick(kind.items.filter((x) => !items.includes(x)), random);
  const json = random() < 0.5;
  const field = fieldName(kind.field, random);
  const missingQ = random() < 0.4;
  const q2Present = random() < 0.5;
  const questions: Record<string, Question> = {
    q1: { type: 'noul', instructions: pick(missingQ ? kind.missing : kind.has, random)(target) },
    // An item of both lists or of neither: its gold is the same in both cases.
    q2: { type: 'noul', instructions: pick(kind.has, random)(q2Present ? pick(rest, random) : other) },
  };
  const withCount = random() < 0.5;
  if (withCount) questions.q3 = random() < 0.5
    ? { type: 'score', instructions: kind.count, criteria: COUNT_WORDS.slice(0, 8) }
    : { type: 'choice', instructions: kind.count, criteria: Object.fromEntries(shuffledBy(['1', '2', '3', '4', '5', '6'], random).map((n) => [n, null])) };
  const seed = Math.floor(random() * 2 ** 31);
  // Half of the pairs move the item to the other list instead of removing it.
  const moved = random() < 0.5;
  const otherField = fieldName(kind.other, random);
  const order = random() < 0.5 ? [withIt, without] : [without, withIt];
  return order.map((list, k) => {
    const elsewhere = moved && !list.includes(target) ? [target] : [];
    let state: State;
    if (json) state = withDistractors(elsewhere.length ? { [field]: list, [otherField]: elsewhere } : { [field]: list }, seeded(seed));
    else state = kind.text(joinList(list), seeded(seed)) + (elsewhere.length ? ` ${kind.otherText}: ${target}.` : '');
    const present = list.includes(target);
    const gold: Record<string, Gold> = { q1: missingQ ? !present : present, q2: q2Present };
    if (withCount) gold.q3 = questions.q3!.type === 'score' ? list.length : String(list.length);
    return { id: `generated/lists/${index}${'ab'[k]}`, source: 'generated/lists', state, questions, gold, pair: `gen:lists:${index}` };
  });
}

interface FieldPairKind {
  a: string;
  b: string;
  values: (r: Random) => [string | number, string | number];
  same: readonly string[];
  differ: readonly string[];
}

const CITIES = ['Lisbon', 'Leeds', 'Lyon', 'Lagos', 'Lima', 'Lund', 'Linz', 'Luton'];
const EQUAL_KINDS: readonly FieldPairKind[] = [
  { a: 'billing city', b: 'shipping city', values: (r) => { const [x, y] = sample(CITIES, 2, r); return [x!, y!]; },
    same: ['Is the order shipped to the billing city?', 'Do the billing and shipping cities match?'], differ: ['Is the shipping city different from the billing city?'] },
  { a: 'quoted price', b: 'charged amount', values: (r) => { const x = between(20, 900, r); return [x, x + pick([1, 5, 10, -1, -5], r)]; },
    same: ['Was the customer charged exactly the quoted price?', 'Does the charged amount match the quote?'], differ: ['Was the customer charged a different amount from the quote?'] },
  { a: 'installed version', b: 'latest version', values: (r) => { const m = between(1, 9, r); const n = between(0, 20, r); return [`${m}.${n}.${between(0, 9, r)}`, `${m}.${n + 1}.0`]; },
    same: ['Is the latest version installed?', 'Is the software up to date?'], differ: ['Is an update available (installed differs from latest)?'] },
  { a: 'ordered quantity', b: 'delivered quantity', values: (r) => { const x = between(1, 200, r); return [x, Math.max(0, x - between(1, 5, r))]; },
    same: ['Was the full quantity delivered?', 'Does the delivered quantity match the order?'], differ: ['Is there a mismatch between ordered and delivered quantities?'] },
  { a: 'email', b: 'confirm email', values: (r) => { const p = pick(PEOPLE, r).toLowerCase(); return [`${p}@example.com`, `${p}@exmaple.com`]; },
    same: ['Do the two e-mail addresses match?', 'Was the e-mail address confirmed correctly?'], differ: ['Do the e-mail and its confirmation differ?'] },
];

/** Two fields made equal or different between the two cases. */
export function equalityPair(index: number, random: Random): DataCase[] {
  const kind = pick(EQUAL_KINDS, random);
  const [x, y] = kind.values(random);
  const fa = fieldName(kind.a, random);
  const fb = fieldName(kind.b, random);
  const askDiffer = random() < 0.35;
  const backtick = random() < 0.4;
  const instructions = backtick
    ? askDiffer ? `Are ${ref(fa)} and ${ref(fb)} different?` : pick([`Do ${ref(fa)} and ${ref(fb)} match?`, `Is ${ref(fa)} equal to ${ref(fb)}?`], random)
    : pick(askDiffer ? kind.differ : kind.same, random);
  const questions: Record<string, Question> = { q1: { type: 'noul', instructions } };
  const seed = Math.floor(random() * 2 ** 31);
  const order = random() < 0.5 ? [x, y] : [y, x];
  return order.map((bValue, k) => {
    const state = withDistractors({ [fa]: x, [fb]: bValue }, seeded(seed));
    const equal = bValue === x;
    return { id: `generated/equality/${index}${'ab'[k]}`, source: 'generated/equality', state, questions, gold: { q1: askDiffer ? !equal : equal }, pair: `gen:equality:${index}` };
  });
}
