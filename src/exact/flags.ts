/**
 * Yes/no questions whose plain words name one boolean field of a JSON state: "Has the invoice
 * been paid?" with `{"invoice":"INV-8","paid":false}`, "Is the user verified?", "Does the
 * customer have an overdue invoice?" with `{"has_overdue_invoice":false}`. The answer is the
 * field's value, so the reading must be certain: every word of the question has to be
 * accounted for (the auxiliary, articles, the subject naming the record, the field's own
 * words); any other word ("paid late", "paid by card", "already") may change the question, and
 * the stage abstains.
 *
 * parseFlag reads the wording (parse.ts has already ruled out negations, comparators,
 * quantifiers, selectors and hypotheticals); bindFlag finds the one boolean field on the state.
 * @module
 */
import { keyWords, stem } from './fields.js';
import { parseDate } from './dates.js';
import { parseQuantity } from './quantity.js';
import type { Query } from './query.js';

export type FlagQuery = Extract<Query, { kind: 'flag' }>;

/** Question-leading auxiliaries ("Has the invoice been paid?"). */
const LEADING = new Set(['is', 'are', 'was', 'were', 'has', 'have', 'had', 'does', 'do', 'did']);
/** The verb between subject and predicate in a statement ("The invoice has been paid."). */
const MEDIAL = new Set(['is', 'are', 'was', 'were', 'has', 'have', 'had']);
const BE = new Set(['is', 'are', 'was', 'were']);
const HAVE = new Set(['has', 'have', 'had']);
/** Words that only point at the subject. */
const DETERMINERS = new Set(['the', 'a', 'an', 'this', 'its', 'their', 'his', 'her', 'our', 'your', 'my']);
/** Words that make the question about a time or a change, not the flag's value. */
const SELECTORS = /\b(?:already|yet|again|anymore|once|currently|now|today|recently|originally|initially|previously|eventually|finally|later|earlier|soon)\b/;
/** Modal and future auxiliaries: the question is about a possibility or a plan. */
const MODAL = /^(?:can|could|may|might|must|shall|should|will|would|need|ought)\b/;
/** A question word asks for something else than yes or no ("Why was the invoice paid?"). */
const WH = new Set(['why', 'when', 'where', 'who', 'whom', 'whose', 'what', 'which', 'how', 'whether']);
/** Words that start with un-/non- but are no negation. */
const UN_WORDS = /^(?:under\w*|unit\w*|union\w*|uniq\w*|univers\w*|uniform\w*|unix|unicode|unanim\w*)$/;
/** Prefixes that negate the word they start when the rest is itself a word of the state. */
const NEG_PREFIX = /^(?:un|non|in|im|il|ir|dis|mis|de)-?([a-z]{3,})$/;

/** The prefixes of a flag's key that only mark it as one ("is_paid", "has_overdue_invoice"). */
const KEY_PREFIX = new Set(['is', 'are', 'was', 'were', 'has', 'have', 'had', 'did', 'does']);

/** People: "Has the customer been paid?" asks whether the customer received money, not whether they paid. */
const PERSON = new Set([
  'customer', 'client', 'user', 'buyer', 'seller', 'vendor', 'supplier', 'merchant', 'employee', 'worker', 'staff', 'contractor', 'freelancer', 'member', 'tenant',
  'landlord', 'patient', 'guest', 'student', 'driver', 'courier', 'partner', 'author', 'owner', 'payee', 'payer', 'recipient', 'sender', 'applicant', 'candidate',
  'person', 'holder', 'agent', 'host', 'creator', 'assignee',
]);

/**
 * Keys whose value describes the record rather than naming it (its status, an amount, a
 * contact): "Is the email verified?" against `{"email": ..., "verified": true}` may ask about
 * the address while the flag is the user's.
 */
const ATTRIBUTE = new Set([
  'status', 'state', 'type', 'kind', 'category', 'stage', 'phase', 'method', 'mode', 'plan', 'tier', 'level', 'priority', 'reason', 'note', 'notes', 'comment',
  'description', 'currency', 'country', 'region', 'city', 'address', 'email', 'mail', 'phone', 'language', 'channel', 'source', 'result', 'outcome', 'label',
  'tag', 'title', 'message', 'text', 'summary', 'owner', 'assignee', 'author', 'creator', 'agent', 'created', 'updated', 'amount', 'total', 'subtotal',
  'balance', 'price', 'cost', 'fee', 'tip', 'tax', 'deposit', 'discount', 'refund', 'payment', 'charge', 'sum', 'count', 'quantity', 'qty', 'score', 'rate',
  'budget', 'salary', 'credit', 'debt', 'due', 'weight', 'size', 'age', 'duration', 'version', 'shipping', 'delivery',
]);
/** Key words that make a field an identifier of the record ("order_id", "invoice_no"). */
const ID_WORDS = new Set(['id', 'no', 'number', 'num', 'ref', 'reference', 'code', 'key', 'uuid', 'name']);

/** Past forms of irregular verbs, for "Did the customer pay?" against `paid`. */
const IRREGULAR: Record<string, string[]> = {
  pay: ['paid'], send: ['sent'], make: ['made'], do: ['done'], give: ['given'], see: ['seen'], write: ['written'], take: ['taken'], buy: ['bought'],
  sell: ['sold'], get: ['got', 'gotten'], lose: ['lost'], win: ['won'], find: ['found'], hold: ['held'], build: ['built'], read: ['read'], set: ['set'],
  put: ['put'], cut: ['cut'], break: ['broken'], choose: ['chosen'], leave: ['left'], bring: ['brought'], keep: ['kept'], meet: ['met'], spend: ['spent'],
  lend: ['lent'], tell: ['told'], lay: ['laid'], ship: ['shipped'], begin: ['begun'], forget: ['forgotten'], hide: ['hidden'], freeze: ['frozen'],
};
const SPELLINGS: Record<string, string> = { cancelled: 'canceled', labelled: 'labeled', modelled: 'modeled', travelled: 'traveled', signalled: 'signaled' };

function pastForms(base: string): string[] {
  if (IRREGULAR[base]) return IRREGULAR[base]!;
  if (base.endsWith('e')) return [`${base}d`];
  if (/[^aeiou]y$/.test(base)) return [`${base.slice(0, -1)}ied`];
  return [`${base}ed`, `${base}${base.slice(-1)}ed`];
}

const spelled = (w: string) => SPELLINGS[w] ?? w;

/**
 * Whether a question word says a key word: the same word (plurals and British spellings
 * folded), or after "did" a verb's base form against the key's past form ("Did it ship?",
 * `shipped`). A base form never names a past form otherwise: "Does the order ship?" is a policy.
 */
function says(q: string, k: string, did: boolean): boolean {
  if (stem(spelled(q)) === stem(spelled(k))) return true;
  return did && pastForms(q).map(spelled).includes(spelled(k));
}

/**
 * Reads "Has the invoice been paid?", "Is the user verified?", "Did the order ship?", "Does the
 * customer have an overdue invoice?" and the statements "The invoice has been paid." into the
 * question's content words; undefined when the wording is anything else.
 */
export function parseFlag(text: string): FlagQuery | undefined {
  const t = text.toLowerCase().replace(/[\u2019]/g, "'");
  if (!/^[a-z' -]+$/.test(t) || SELECTORS.test(t) || MODAL.test(t)) return undefined;
  const raw = t.replace(/'s\b/g, '').replace(/\b(?:marked|flagged)(?: as)?\b/g, ' ').split(/\s+/).filter((w) => w !== '');
  // un-/non- negate the word they start ("unpaid", "non-vip"), whatever the state holds.
  if (raw.some((w) => /^(?:un|non|not)-/.test(w) || (/^(?:un|non)[a-z]{3,}$/.test(w) && !UN_WORDS.test(w)))) return undefined;
  if (raw.some((w) => w.includes("'"))) return undefined;
  const tokens = raw.flatMap((w) => w.split('-')).filter((w) => w !== '');
  if (tokens.length < 2 || tokens.length > 14 || WH.has(tokens[0]!)) return undefined;

  let aux: string | undefined;
  let body: string[];
  if (LEADING.has(tokens[0]!)) {
    aux = tokens[0]!;
    body = tokens.slice(1);
    if (body.some((w) => BE.has(w) || w === 'does' || w === 'do' || w === 'did')) return undefined;
  } else {
    const i = tokens.findIndex((w) => MEDIAL.has(w));
    if (tokens.some((w, j) => j !== i && (MEDIAL.has(w) || w === 'does' || w === 'do' || w === 'did'))) return undefined;
    aux = i >= 0 ? tokens[i] : undefined;
    body = i >= 0 ? [...tokens.slice(0, i), ...tokens.slice(i + 1)] : tokens;
  }
  // "been" only in the perfect ("has been paid"); "being" is a process, not a state.
  const been = body.filter((w) => w === 'been').length;
  if (been > 1 || (been === 1 && !HAVE.has(aux ?? '')) || body.includes('being') || body.includes('be')) return undefined;
  const words = body.filter((w) => w !== 'been' && !DETERMINERS.has(w));
  // A have-form left in the body is possession ("Does the customer have an overdue invoice?"), allowed after do/does/did only.
  const possessive = words.filter((w) => HAVE.has(w)).length;
  if (possessive > 1 || (possessive === 1 && !['does', 'do', 'did'].includes(aux ?? ''))) return undefined;
  if (words.length === 0 || words.length > 8) return undefined;
  return { kind: 'flag', words, did: aux === 'did', passive: BE.has(aux ?? '') || been === 1 };
}

/** A boolean field found for the question, or why none was. */
export type FlagBinding = { path: string; value: boolean } | { reason: string };

interface KeyInfo {
  path: string;
  keys: string[];
  inArray: boolean;
  value: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every key of the state at any depth (objects and lists included), with its value; undefined past the limits (a field not seen could be a second match). */
function allKeys(root: unknown, limit = 5000): KeyInfo[] | undefined {
  const out: KeyInfo[] = [];
  let whole = true;
  const walk = (v: unknown, path: string, keys: string[], inArray: boolean, depth: number): void => {
    if (out.length >= limit || depth > 12) {
      whole = false;
      return;
    }
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}[${i}]`, keys, true, depth + 1));
    else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        const p = path === '' ? k : `${path}.${k}`;
        out.push({ path: p, keys: [...keys, k], inArray, value: v[k] });
        walk(v[k], p, [...keys, k], inArray, depth + 1);
      }
    }
  };
  walk(root, '', [], false, 0);
  return whole ? out : undefined;
}

/** A flag key's own words without its "is_"/"has_" prefix, and whether it had "has". */
function flagWords(key: string): { words: string[]; has: boolean } {
  const words = keyWords(key);
  const has = words.length > 1 && HAVE.has(words[0]!);
  return { words: words.length > 1 && KEY_PREFIX.has(words[0]!) ? words.slice(1) : words, has };
}

/**
 * Keys that name the record the object is about: the first key that is an identifier with a
 * noun (`order_id`, `invoice_no`; later ones are other records': `customer_id`), and the first
 * key when it is one word holding a name or a number and no attribute (`{"invoice": "INV-8",
 * ...}`, `{"order": 7, ...}`, `{"user": "ana", ...}`).
 */
function recordNames(root: Record<string, unknown>): string[][] {
  const out: string[][] = [];
  let identifier = false;
  Object.keys(root).forEach((k, i) => {
    const v = root[k];
    const raw = keyWords(k);
    const words = raw.map(stem);
    let named = false;
    if (typeof v === 'string') named = v.trim() !== '' && !parseDate(v) && !parseQuantity(v);
    // A number under a plural key counts ("orders": 7), under a singular one it may be an id ("order": 7).
    else if (typeof v === 'number') named = Number.isInteger(v) && raw.every((w) => stem(w) === w);
    if (!named) return;
    const id = words.some((w) => ID_WORDS.has(w));
    if (id && !identifier && words.some((w) => !ID_WORDS.has(w))) {
      identifier = true;
      out.push(words);
    } else if (!id && i === 0 && words.length === 1 && !ATTRIBUTE.has(words[0]!)) out.push(words);
  });
  return out;
}

/**
 * The one boolean field the question's words name, with the checks that make the reading
 * certain; a reason otherwise.
 */
export function bindFlag(state: unknown, q: FlagQuery): FlagBinding {
  if (!isObject(state)) return { reason: 'not a JSON object state' };
  const keys = allKeys(state);
  if (!keys) return { reason: 'the state is too large or too deep to rule out a second field' };
  const stateWords = new Set(keys.flatMap((k) => keyWords(k.keys[k.keys.length - 1]!)).map(stem));
  // "inactive" against `active`, "disabled" against `enabled`: a negated field word.
  for (const w of q.words) {
    const m = NEG_PREFIX.exec(w);
    if (m && !stateWords.has(stem(w)) && stateWords.has(stem(m[1]!))) return { reason: `"${w}" negates a field of the state` };
  }
  const matches: { info: KeyInfo; own: string[]; subject: string[] }[] = [];
  for (const info of keys) {
    const { words: own, has } = flagWords(info.keys[info.keys.length - 1]!);
    if (own.length === 0 || own.length > q.words.length) continue;
    // The field's words end the question, in any order; a have-form right before them goes with a "has_" key.
    const tail = q.words.slice(q.words.length - own.length);
    const left = [...own];
    let past = false;
    for (const w of tail) {
      const i = left.findIndex((k) => says(w, k, q.did));
      if (i < 0) break;
      past ||= !says(w, left[i]!, false);
      left.splice(i, 1);
    }
    // After "did" the verb is in its base form and the key in its past form: "Did the order ship?" is not `ship` (a setting).
    if (left.length > 0 || (q.did && !has && !past)) continue;
    let subject = q.words.slice(0, q.words.length - own.length);
    if (subject.length > 0 && HAVE.has(subject[subject.length - 1]!)) {
      if (!has) continue;
      subject = subject.slice(0, -1);
    }
    if (subject.some((w) => HAVE.has(w))) continue;
    matches.push({ info, own, subject });
  }
  if (matches.length === 0) return { reason: 'no field of the state is named by the question\'s words' };
  if (matches.length > 1) return { reason: `the words name ${matches.length} fields` };
  const { info, own, subject } = matches[0]!;
  if (info.inArray) return { reason: `\`${info.path}\` is inside a list` };
  if (typeof info.value !== 'boolean') return { reason: `\`${info.path}\` is not a boolean` };
  // Another key or a text value with the field's words or their verb ("paid_at", "amount_paid", "pay_status", status
  // "partially paid", `cancel_reason` next to `cancelled`) may say more than the flag.
  const related = (w: string) => own.some((k) => says(w, k, true) || says(k, w, true));
  for (const other of keys) {
    if (other === info) continue;
    if (keyWords(other.keys[other.keys.length - 1]!).some(related)) return { reason: `\`${other.path}\` also uses the field's words` };
    if (typeof other.value === 'string' && keyWords(other.value).some(related)) return { reason: `\`${other.path}\` says "${other.value}"` };
  }
  if (subject.some((w) => matchesAnyFlag(keys, info, w, q.did))) return { reason: 'the subject names another field' };
  // Passive "paid" with a person as subject: "Has the customer been paid?" is the reverse of `paid`.
  if (q.passive && own.some((k) => k === 'paid') && subject.some((w) => PERSON.has(stem(w)))) return { reason: 'a person "been paid" reverses who paid' };
  const why = subjectReason(state, info, subject, stateWords);
  return why ? { reason: why } : { path: info.path, value: info.value };
}

function matchesAnyFlag(keys: KeyInfo[], self: KeyInfo, w: string, did: boolean): boolean {
  return keys.some((k) => k !== self && typeof k.value === 'boolean' && flagWords(k.keys[k.keys.length - 1]!).words.some((kw) => says(w, kw, did)));
}

/** Parent keys that wrap a record without naming a thing (`data.email_verified`, `payment_info.received`: "the payment"). */
const WRAPPER = new Set(['info', 'information', 'detail', 'data', 'record', 'meta', 'metadata', 'payload', 'attribute', 'property', 'field', 'flag', 'setting']);

/**
 * The subject must name the record the field belongs to. A nested field's nearest parent that
 * is not a wrapper must be named ("Has the payment been received?" for
 * `order.payment.received`; "Was the order approved?" does not name `order.refund.approved`),
 * with words of its other parents or of the key naming the whole record. A field at the top
 * level, or under wrappers only, belongs to the record that holds it: the subject is the key
 * naming that record (`{"invoice": "INV-8", "paid": false}`: "the invoice"), or none, or, in a
 * record that names nothing (no text or number in it), one word of its own that is no key of the
 * state and no attribute ("Is the account active?" against `{"active": false}`).
 */
function subjectReason(state: Record<string, unknown>, info: KeyInfo, subject: string[], stateWords: ReadonlySet<string>): string | undefined {
  const words = subject.map(stem);
  const chain = info.keys.slice(0, -1);
  const parents = new Set(chain.flatMap(keyWords).map(stem));
  const rest = words.filter((w) => !parents.has(w));
  const no = `the subject "${subject.join(' ')}" does not name the record of \`${info.path}\``;
  const meaningful = chain.map((k) => keyWords(k).map(stem).filter((w) => !WRAPPER.has(w))).filter((ws) => ws.length > 0);
  let record: unknown = state;
  for (const k of chain) record = isObject(record) ? record[k] : undefined;
  if (!isObject(record)) return no;
  const names = recordNames(meaningful.length === 0 ? record : state);
  const named = rest.length === 0 || names.some((n) => rest.every((w) => n.includes(w)));
  if (meaningful.length > 0) return meaningful[meaningful.length - 1]!.every((w) => words.includes(w)) && named ? undefined : no;
  if (named) return undefined;
  const namesNothing = Object.values(record).every((v) => typeof v === 'boolean' || v === null || isObject(v) || Array.isArray(v));
  // The one word must not name a part of the state or an attribute ("Is the plan active?" against a `plan` object, "Is the refund paid?").
  if (rest.length === 1 && namesNothing && !stateWords.has(rest[0]!) && !ATTRIBUTE.has(rest[0]!)) return undefined;
  return no;
}
