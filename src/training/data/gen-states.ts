/**
 * Counterfactual pairs over opposite states (`generated/states`): the same questions asked of two
 * states that differ only in the state word ("The back door of the warehouse is locked." /
 * "... is unlocked.") or only in a negation ("... is locked." / "... is not locked."), so that
 * every question's gold flips within the pair. The shipped model answered direct questions of this
 * kind by their wording ("The window is open." / "Is the window closed?": 0.57); a pair shows
 * the same wording with both answers.
 *
 * Every pair asks one yes/no question about either side's word (so yes is tied to no word),
 * sometimes a second in another form (with criteria, or about the other word), and sometimes a
 * choice between the two states and a third. States are one sentence, the sentence between
 * neutral filler sentences, or (a quarter) a JSON record with a `status` field. Golds follow
 * from which side holds: a stated side holds and its opposite does not; a negated side does not
 * hold, and its opposite holds only for complementary pairs (questions whose answer a negation
 * leaves open are not asked).
 * @module
 */
import type { JsonObject, Question, State } from '../../types.js';
import type { Gold } from '../data.js';
import { COMPANIES, person, recordId, withDistractors } from './gen-common.js';
import { negatable, STATE_PAIRS, type Side, type StatePair } from './gen-states-lexicon.js';
import { seeded } from './gen-numbers.js';
import type { DataCase } from './types.js';
import { pick, sample, shuffledBy, ucFirst, type Random } from './util.js';

/** A subject as the state says it (`long`) and as questions say it (`short`). */
export interface Subject {
  long: string;
  short: string;
  tail: string;
  plural: boolean;
  person: boolean;
}

/** Reads a lexicon subject (`+short|suffix>tail`, `{P}` for an invented person). */
export function subjectOf(spec: string, random: Random): Subject {
  const plural = spec.startsWith('+');
  const [head, tail = ''] = (plural ? spec.slice(1) : spec).split('>');
  const [short, suffix = ''] = head!.split('|');
  const full = person(random);
  const first = full.split(' ')[0]!;
  return {
    long: `${short}${suffix}`.replace('{P}', full),
    short: short!.replace('{P}', first),
    tail: tail === '' ? '' : ` ${tail}`,
    plural,
    person: spec.includes('{P}'),
  };
}

const verb = (s: Subject, singular: string, plural: string) => (s.plural ? plural : singular);

/** The statement of a side about a subject, or of its negation. `perfect`: "has been" rather than "was". */
export function statement(side: Side, s: Subject, negated: boolean, perfect: boolean): string {
  const S = ucFirst(s.long);
  const not = negated ? ' not' : '';
  switch (side.form) {
    case 'is':
      return `${S} ${verb(s, 'is', 'are')}${not} ${side.word}${s.tail}.`;
    case 'was':
      return `${S} ${verb(s, 'was', 'were')}${not} ${side.word}${s.tail}.`;
    case 'been':
      return perfect ? `${S} ${verb(s, 'has', 'have')}${not} been ${side.word}${s.tail}.` : `${S} ${verb(s, 'was', 'were')}${not} ${side.word}${s.tail}.`;
    case 'did':
      return negated ? `${S} did not ${side.base}${s.tail}.` : `${S} ${side.word}${s.tail}.`;
  }
}

/** The clause "the gate is open" (for "Answer yes if ...", "Check whether ..."). */
function clause(side: Side, s: Subject, perfect: boolean): string {
  const t = s.tail;
  switch (side.form) {
    case 'is':
      return `${s.short} ${verb(s, 'is', 'are')} ${side.word}${t}`;
    case 'was':
      return `${s.short} ${verb(s, 'was', 'were')} ${side.word}${t}`;
    case 'been':
      return perfect ? `${s.short} ${verb(s, 'has', 'have')} been ${side.word}${t}` : `${s.short} ${verb(s, 'was', 'were')} ${side.word}${t}`;
    case 'did':
      return `${s.short} ${side.word}${t}`;
  }
}

/** The direct question "Is the gate open?" ("Has ... been", "Did ... take place"). */
function direct(side: Side, s: Subject, perfect: boolean): string {
  const t = s.tail;
  switch (side.form) {
    case 'is':
      return `${verb(s, 'Is', 'Are')} ${s.short} ${side.word}${t}?`;
    case 'was':
      return `${verb(s, 'Was', 'Were')} ${s.short} ${side.word}${t}?`;
    case 'been':
      return perfect ? `${verb(s, 'Has', 'Have')} ${s.short} been ${side.word}${t}?` : `${verb(s, 'Was', 'Were')} ${s.short} ${side.word}${t}?`;
    case 'did':
      return `Did ${s.short} ${side.base}${t}?`;
  }
}

/** Yes/no questions whose answer is yes exactly when `side` holds. */
const ASKS: readonly ((side: Side, s: Subject, perfect: boolean, src: string) => string)[] = [
  (side, s, p) => direct(side, s, p),
  (side, s, p) => direct(side, s, p),
  (side, s, p) => direct(side, s, !p),
  (side, s, p, src) => `According to ${src}, ${direct(side, s, p).charAt(0).toLowerCase()}${direct(side, s, p).slice(1)}`,
  (side, s, p) => `Would you say ${clause(side, s, p)}?`,
  (side, s, p) => `Answer yes if ${clause(side, s, p)}.`,
  (side, s, p) => `Check whether ${clause(side, s, p)}.`,
  (side, s, p) => `Is it true that ${clause(side, s, p)}?`,
  (side, s, p) => `${ucFirst(clause(side, s, p))}.`,
  (side, s, p) => `Yes or no: ${direct(side, s, p)}`,
];

/** Neutral sentences around a state: they name no state of the lexicon (a test checks it). */
const FILLERS: readonly ((r: Random) => string)[] = [
  (r) => `This note was added by ${person(r)}.`,
  (r) => `Logged at ${10 + Math.floor(r() * 9)}:${pick(['05', '20', '35', '50'], r)} by the front desk.`,
  (r) => `Reference ${recordId(pick(['REF', 'LOG', 'NOTE'], r), r)}.`,
  () => 'Please keep this message for your records.',
  () => 'More details will follow in the weekly summary.',
  (r) => `The next site visit is planned for ${pick(['Monday', 'Tuesday', 'Thursday'], r)}.`,
  (r) => `${person(r)} wrote this update.`,
  () => 'Questions can go to the facilities team.',
  () => 'Thanks to everyone for the quick replies.',
  () => 'See the shared folder for photos.',
  (r) => `Copied to ${person(r)}.`,
  (r) => `Written for ${pick(COMPANIES, r)}.`,
];

export function fillers(n: number, random: Random): string[] {
  return sample(FILLERS, n, random).map((f) => f(random));
}

/** What a case's state says: a side stated, or negated. */
interface Said {
  side: 'a' | 'b';
  negated: boolean;
}

/** Whether `asked` holds given what was said, or null when the state leaves it open. */
export function holds(p: StatePair, said: Said, asked: 'a' | 'b'): boolean | null {
  if (!said.negated) return said.side === asked;
  if (said.side === asked) return false;
  return p.complementary ? true : null;
}

const other = (x: 'a' | 'b') => (x === 'a' ? 'b' : 'a');

const CHOICE: readonly ((s: Subject) => string | null)[] = [
  (s) => `What is the state of ${s.short}?`,
  (s) => `Which of these describes ${s.short}?`,
  (s) => `${ucFirst(s.short)}: which is it?`,
  (s) => `Pick the status of ${s.short}.`,
  () => null,
];

/** One pair group: two cases whose states differ in the state word or a negation only. */
export function statePair(index: number, random: Random): DataCase[] {
  const p = pick(STATE_PAIRS, random);
  const subjectSeed = Math.floor(random() * 2 ** 31);
  const s = subjectOf(pick(p.subjects, random), seeded(subjectSeed));
  const perfect = random() < 0.5;
  // A quarter are JSON records; records state a side's label, never a negation.
  const json = random() < 0.25 && s.tail === '';
  const negation = !json && random() < 0.3;
  const canNegate = (['a', 'b'] as const).filter((x) => negatable(p[x]));
  let said: [Said, Said];
  if (!negation || canNegate.length === 0) said = [{ side: 'a', negated: false }, { side: 'b', negated: false }];
  else {
    const w = pick(canNegate, random);
    // Complementary pairs also negate both words ("not locked" / "not unlocked").
    said = p.complementary && canNegate.length === 2 && random() < 0.3 ? [{ side: w, negated: true }, { side: other(w), negated: true }] : [{ side: w, negated: false }, { side: w, negated: true }];
  }
  const askable = (['a', 'b'] as const).filter((x) => said.every((d) => holds(p, d, x) !== null));
  const both = askable.length === 2;
  const src = json ? pick(['the record', 'the data', 'this entry'], random) : pick(['the text', 'the note', 'the message'], random);

  type Ask = { question: Question; gold: (d: Said) => Gold; asked?: 'a' | 'b' };
  const noul = (asked: 'a' | 'b'): Ask => ({ question: { type: 'noul', instructions: pick(ASKS, random)(p[asked], s, perfect, src) }, gold: (d) => holds(p, d, asked)!, asked });
  const asks: Ask[] = [noul(pick(askable, random))];
  if (random() < 0.5) {
    if (both && random() < 0.4) {
      const t = random() < 0.5 ? 'a' : 'b';
      const full = random() < 0.5;
      const describe = (x: 'a' | 'b') => (full ? statement(p[x], s, false, perfect) : p[x].label);
      const criteria = random() < 0.7 ? { true: describe(t), false: describe(other(t)) } : { true: statement(p[t], s, false, perfect) };
      const instructions = pick([`What is the state of ${s.short}?`, `Check ${s.short}.`, `${ucFirst(s.short)}.`, null], random);
      asks.push({ question: instructions === null ? { type: 'noul', criteria } : { type: 'noul', instructions, criteria }, gold: (d) => holds(p, d, t)! });
    } else {
      // Another wording, about the other word where the state settles it.
      const asked = both ? other(asks[0]!.asked!) : askable[0]!;
      let next = noul(asked);
      for (let tries = 0; tries < 4 && next.question.instructions === asks[0]!.question.instructions; tries++) next = noul(asked);
      if (next.question.instructions !== asks[0]!.question.instructions) asks.push(next);
    }
  }
  if (both && random() < 0.35) {
    const options = shuffledBy([p.a.label, p.b.label, ...sample(p.others, 1, random)], random);
    const described = random() < 0.3;
    const sideOf = (label: string) => (label === p.a.label ? p.a : label === p.b.label ? p.b : null);
    const criteria = Object.fromEntries(options.map((o) => [o, described && sideOf(o) ? statement(sideOf(o)!, s, false, perfect) : null]));
    const instructions = pick(CHOICE, random)(s);
    asks.push({ question: instructions === null ? { type: 'choice', criteria } : { type: 'choice', instructions, criteria }, gold: (d) => p[holds(p, d, 'a') ? 'a' : 'b'].label });
  }

  const layoutSeed = Math.floor(random() * 2 ** 31);
  const questions: Record<string, Question> = {};
  asks.forEach((a, i) => (questions[`q${i + 1}`] = a.question));
  const order = random() < 0.5 ? said : [said[1], said[0]];
  return order.map((d, k) => {
    const gold: Record<string, Gold> = {};
    asks.forEach((a, i) => (gold[`q${i + 1}`] = a.gold(d)));
    return { id: `generated/states/${index}${'ab'[k]}`, source: 'generated/states', state: stateOf(p, s, d, json, perfect, seeded(layoutSeed)), questions, gold, pair: `gen:states:${index}` };
  });
}

/** The state of one case; `random` is shared by both cases of a pair, so only the state word differs. */
function stateOf(p: StatePair, s: Subject, d: Said, json: boolean, perfect: boolean, random: Random): State {
  if (json) {
    const key = s.person ? 'name' : p.key === 'name' ? 'subject' : (p.key ?? 'item');
    const record: JsonObject = { [key]: s.long.replace(/^the /, ''), status: p[d.side].label };
    return withDistractors(record, random);
  }
  const sentence = statement(p[d.side], s, d.negated, perfect);
  const layout = random();
  if (layout < 0.45) return sentence;
  const extra = fillers(random() < 0.5 ? 1 : 2, random);
  const at = Math.floor(random() * (extra.length + 1));
  const parts = [...extra.slice(0, at), sentence, ...extra.slice(at)];
  return parts.join(random() < 0.8 ? ' ' : '\n');
}
