/**
 * Finding the one field of a JSON state that a question's noun phrase names: "the report total"
 * is `report.total`, "gusts" is `gust_kmh`, and, with an owner, "the customer's age" is `age`
 * and "Biscuit's age" is `pet.age_years` next to `"name": "Biscuit"`.
 *
 * An owner (a possessive, or one record noun before the field's words: "the order total") says
 * whose field it is. It is read through only when it cannot point at another field: it names
 * the object that holds the field (a parent key, a top-level key naming the record, the holder's
 * name or first name when no other text of the state says it), or it is a record noun
 * ("customer", "order") that names nothing in the state at all, the field is the record's own
 * (top level) and no other field anywhere in the state has the same name. A person's name that
 * is not the holder's ("Bob's age"), a time ("today's total") or any other modifier ("the
 * shipping total") is never read through: it may name a different quantity than the field.
 * @module
 */
import { keyWords, leaves, phraseWords, stem, type Leaf } from './fields.js';
import { parseDate } from './dates.js';
import { parseQuantity, unitOf } from './quantity.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A key's word for a duration in years: `age_years` is named by "age" (its value counts years, the plain reading of an age). */
const YEARS = new Set(['years', 'yrs']);

/**
 * Nouns that name a record or its subject, not a kind of quantity or a time: "the order total"
 * and "the customer's age" may be the state's `total` and `age`, while "the shipping total",
 * "today's total" or "Bob's age" may be another quantity than the field. No word here is also a
 * common first name ("Bill").
 */
const RECORD = new Set([
  'order', 'purchase', 'cart', 'basket', 'invoice', 'receipt', 'account', 'booking', 'reservation', 'ticket', 'subscription', 'shipment', 'package',
  'parcel', 'loan', 'claim', 'customer', 'client', 'user', 'member', 'employee', 'patient', 'guest', 'student', 'applicant', 'candidate', 'tenant', 'person',
  'passenger', 'traveller', 'traveler', 'buyer', 'seller', 'vehicle', 'device', 'server', 'project', 'product',
]);

/**
 * The text values that name an object: under a key with "name" in it ("name": "Biscuit"), and
 * the first key's when it holds text (`{"student": "Maya Solis", ...}`).
 */
function namesOf(held: Record<string, unknown>): string[] {
  const keys = Object.keys(held);
  return keys
    .filter((k, i) => typeof held[k] === 'string' && (keyWords(k).includes('name') || i === 0))
    .map((k) => held[k] as string)
    .filter((v) => !parseDate(v) && !parseQuantity(v));
}

/** Whether the owner words are a name: all its words, or its first word alone ("Maya" for "Maya Solis"). */
function isName(owner: readonly string[], name: string): boolean {
  const words = phraseWords(name);
  return words.join(' ') === owner.join(' ') || (owner.length === 1 && words[0] === owner[0]);
}

/** The owner before a possessive, and the rest: "the customer's age" -> customer, age. */
function splitOwner(phrase: string): { owner: string[]; head: string } | undefined {
  const parts = phrase.split(/['\u2019]s\s+/);
  if (parts.length === 1) return undefined;
  if (parts.length > 2 || /['\u2019]/.test(parts[1]!)) return { owner: [], head: '' };
  return { owner: phraseWords(parts[0]!), head: parts[1]! };
}

/** Stemmed words of the state's keys (lists included) and of its text values; undefined when the state is too large to know. */
function stateWords(all: readonly Leaf[]): Set<string> | undefined {
  if (all.length >= 5000) return undefined;
  const out = new Set<string>();
  for (const leaf of all) {
    for (const k of leaf.keys) for (const w of keyWords(k)) out.add(stem(w));
    if (typeof leaf.value === 'string') for (const w of phraseWords(leaf.value)) out.add(w);
  }
  return out;
}

/** The object that holds a leaf (not inside a list). */
function holder(root: unknown, leaf: Leaf): Record<string, unknown> | undefined {
  let v = root;
  for (const k of leaf.keys.slice(0, -1)) v = isObject(v) ? v[k] : undefined;
  return isObject(v) ? v : undefined;
}

/**
 * Whether the owner words (those of the phrase that name none of the leaf's keys) may be read
 * through for this leaf: the holder's name, or, for a top-level field, an owner that names
 * nothing in the state (never a time).
 */
function ownerFits(root: unknown, leaf: Leaf, owner: readonly string[], possessive: boolean, all: readonly Leaf[], words: Set<string> | undefined): boolean {
  if (owner.length === 0 || owner.length > 3) return false;
  const held = holder(root, leaf);
  // The holder's name, said by no other text of the state ("Maya" next to a teacher "Maya Lee" abstains).
  if (possessive && held && namesOf(held).some((n) => isName(owner, n))) {
    const said = all.filter((l) => typeof l.value === 'string' && owner.every((w) => phraseWords(l.value as string).includes(w)));
    return said.length === 1;
  }
  // "Bob's age" may be another person's than the record's: only a record noun stands for the record.
  if (leaf.keys.length !== 1 || !words || owner.length !== 1 || !RECORD.has(owner[0]!) || words.has(owner[0]!)) return false;
  // The owner then says nothing about which field: the field's words must single it out in the
  // whole state, lists included ("the customer's age" next to `guardian.age` may be the guardian's).
  const own = ownWords(leaf);
  return !all.some((other) => other !== leaf && other.keys.length > 0 && sameName(ownWords(other), own));
}

/** A leaf's own key words, stemmed, without unit words. */
function ownWords(leaf: Leaf, generic: ReadonlySet<string> = new Set()): string[] {
  return keyWords(leaf.keys[leaf.keys.length - 1]!).filter((w) => !unitOf(w) && !YEARS.has(w) && !generic.has(w)).map(stem);
}

const sameName = (a: readonly string[], b: readonly string[]) => a.length > 0 && a.length === b.length && a.every((w) => b.includes(w));

/**
 * The one leaf whose name the phrase names: every word of the phrase appears among the leaf's
 * key words (all levels), and every word of the leaf's own key (its unit left out) appears in
 * the phrase; at most one other word, of a top-level key naming the record ("cart_id": "the
 * cart total" is `total`), or an owner (above). Leaves inside arrays are never bound by name;
 * several matches, or none, give undefined, except that a possessive owner naming the parent of
 * exactly one of them picks it ("the pet's age" with `pet.age` and `owner.age`). `accept`
 * filters candidates by value kind.
 */
export function bindLabel(root: unknown, phrase: string, accept: (leaf: Leaf) => boolean, generic: ReadonlySet<string> = new Set()): Leaf | undefined {
  const words = phraseWords(phrase).filter((w) => !generic.has(w));
  if (words.length === 0 || words.length > 6) return undefined;
  const split = splitOwner(phrase);
  if (split && split.head === '') return undefined;
  const owner = split?.owner.filter((w) => !generic.has(w));
  // Words of the top-level keys name what the whole record is ("cart_id": "the cart total" is `total`).
  const context = new Set(isObject(root) ? Object.keys(root).flatMap(keyWords).map(stem) : []);
  const all = leaves(root);
  let known: Set<string> | undefined | null = null;
  const found: Leaf[] = [];
  for (const leaf of all) {
    if (leaf.inArray || leaf.keys.length === 0 || !accept(leaf)) continue;
    const keysWords = new Set(leaf.keys.flatMap(keyWords).map(stem));
    const own = ownWords(leaf, generic);
    if (own.length === 0 || !own.every((w) => words.includes(w))) continue;
    const named = words.filter((w) => keysWords.has(w) || unitOf(w) !== undefined);
    const extra = words.filter((w) => !named.includes(w));
    if (named.length === 0) continue;
    if (extra.every((w) => context.has(w) && !keysWords.has(w)) && extra.length <= 1) {
      found.push(leaf);
      continue;
    }
    // An owner: the possessive's words, or one record noun that starts the phrase ("the order total").
    const ownerWords = owner ?? (extra.length === 1 && words[0] === extra[0] ? extra : []);
    if (!extra.every((w) => ownerWords.includes(w))) continue;
    if (known === null) known = stateWords(all);
    if (ownerFits(root, leaf, ownerWords, owner !== undefined, all, known)) found.push(leaf);
  }
  if (found.length > 1 && owner && owner.length > 0) {
    const parentNamed = found.filter((l) => owner.every((w) => l.keys.slice(0, -1).flatMap(keyWords).map(stem).includes(w)));
    if (parentNamed.length === 1) return parentNamed[0];
  }
  return found.length === 1 ? found[0] : undefined;
}
