/**
 * Reading a question's text into a typed query (query.ts), only when its wording is one of the
 * unambiguous forms below; anything else gives undefined and the model answers. The forms:
 *
 * - comparison: `<operand> <comparator> <operand>` ("Is `total` at least 5,000?", "The opening
 *   balance is above $600.", "`x` > 71", "Did `delivered` come after `promised`?"), `between`;
 * - state checks: "Is `flag` true?", "Is `notes` empty?", "`plan` is \"pro\".";
 * - a boolean field named by plain words: "Has the invoice been paid?" (flags.ts);
 * - a field implied by the wording: "Is the customer older than 30?", "Is the patient over 40?"
 *   (implied.ts);
 * - lists: "Does any element of `L` have `f` greater than 5?", "every item in `L` has ...",
 *   "no entry of `L` has ...", "Are there at least three flights in `legs`?";
 * - dates: within N days/weeks/months of, weekday, weekend, month;
 * - values for choice and score: "How many entries in `L` have `f` below 8?", "Mean of `L[].f`",
 *   "What share of the items in `L` have ...", "What is `x`?".
 *
 * Negations other than the bounds "no more than", "not less than"... make it abstain, as does
 * any operand it cannot read whole.
 * @module
 */
import { parseDate } from './dates.js';
import { monthOf, WEEKDAYS } from './dates.js';
import { phraseWords, stem } from './fields.js';
import { parseFlag } from './flags.js';
import { parseDigits, parseQuantity, unitOf, writtenNumber } from './quantity.js';
import { impliedComparison, personAge } from './implied.js';
import type { AggFn, Cmp, ItemCond, Operand, Query } from './query.js';

/** Comparator phrases, longest first so that "at least" wins over "least"-free prefixes. */
const COMPARATORS: [string, Cmp][] = [
  ['greater than or equal to', 'ge'], ['more than or equal to', 'ge'], ['less than or equal to', 'le'],
  ['is on or before', 'le'], ['is on or after', 'ge'], ['on or before', 'le'], ['on or after', 'ge'],
  ['no later than', 'le'], ['no earlier than', 'ge'], ['not later than', 'le'], ['not earlier than', 'ge'],
  ['no less than', 'ge'], ['not less than', 'ge'], ['no fewer than', 'ge'], ['no more than', 'le'], ['not more than', 'le'],
  ['no greater than', 'le'], ['not greater than', 'le'], ['not equal to', 'ne'], ['different from', 'ne'], ['differs from', 'ne'], ['differ from', 'ne'],
  ['at or above', 'ge'], ['at or below', 'le'], ['at least', 'ge'], ['at most', 'le'], ['in excess of', 'gt'],
  ['greater than', 'gt'], ['more than', 'gt'], ['higher than', 'gt'], ['larger than', 'gt'], ['bigger than', 'gt'], ['longer than', 'gt'],
  ['later than', 'gt'], ['earlier than', 'lt'], ['prior to', 'lt'],
  ['less than', 'lt'], ['fewer than', 'lt'], ['lower than', 'lt'], ['smaller than', 'lt'], ['shorter than', 'lt'],
  ['the same as', 'eq'], ['identical to', 'eq'], ['equal to', 'eq'], ['equals', 'eq'], ['equal', 'eq'], ['match', 'eq'], ['matches', 'eq'],
  ['meets or exceeds', 'ge'], ['meet or exceed', 'ge'], ['exceeds', 'gt'], ['exceeded', 'gt'], ['exceed', 'gt'], ['reaches', 'ge'], ['reached', 'ge'], ['reach', 'ge'],
  ['meets', 'ge'], ['meet', 'ge'], ['exactly', 'eq'],
  ['above', 'gt'], ['over', 'gt'], ['below', 'lt'], ['under', 'lt'], ['before', 'lt'], ['after', 'gt'],
  ['>=', 'ge'], ['<=', 'le'], ['!=', 'ne'], ['==', 'eq'], ['≥', 'ge'], ['≤', 'le'], ['≠', 'ne'], ['>', 'gt'], ['<', 'lt'], ['=', 'eq'],
];

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const COMPARATOR_RE = new RegExp(
  COMPARATORS.map(([p]) => (/^[a-z]/.test(p) ? `\\b${esc(p)}\\b` : `(?<![<>=!])${esc(p)}(?![<>=])`)).join('|'),
  'g',
);
const CMP_OF = new Map(COMPARATORS);

/** Prefixes and suffixes that frame a statement to check without changing it. */
const FRAME_PREFIX = /^(?:is it true that|is it the case that|true or false:?|yes or no:?|statement to check:|statement:|check:|check whether|verify(?: that)?:?|answer yes if|confirm(?: that)?:?)\s+/i;
const FRAME_SUFFIX = /\s*(?:[.,;:]\s*(?:correct|right|true|yes or no|true or false)\?|\(yes\/no\))$/i;

/** Negation words; the bounds listed in COMPARATORS and "no entry of" are removed before this test. */
const NEGATION = /\b(?:not|no|never|none|nothing|neither|nor|cannot|without|lacks?|fails?|unless)\b|n't\b/i;

/** Words that make a named operand something else than one field (arithmetic, quantifiers, conditions). */
const COMPOUND = /\b(?:and|or|plus|minus|times|combined|together|sum|average|mean|median|each|per|every|all|any|both|either|half|twice|double|triple|difference|ratio|if|than|since|when|while|until|after|before|would|could|should|might|still|ever|also|only|least|most|first|last|latest|earliest|highest|lowest|new|old|previous|next|other|another|who|which|whose|where|what|how|there|it|they|he|she|we|you|i)\b/i;

const AUX = /^(?:is|are|was|were|does|do|did|has|have|had|will|shall)\s+/i;
const COPULA = /\s+(?:is|are|was|were|be|been|stands at|sits|came in|comes in|come|came|fall|falls|fell|go|goes|went|get|gets|got|lasted|lasts|took|takes|weighed|weighs|measured|measures|totalled|totaled|totals|amounted to|amounts to|came to|comes to|cost|costs|ran|runs)$/i;

/** Function words that a counted noun's context need not repeat. */
const STOP = new Set(['in', 'at', 'to', 'by', 'from', 'with', 'on', 'for', 'of', 'be', 'been', 'being']);

const ITEM = String.raw`(?:elements?|entr(?:y|ies)|items?|records?|rows?|objects?|members?)`;

function ref(text: string): string | undefined {
  const m = /^`([^`\n]+)`$/.exec(text.trim());
  return m ? m[1] : undefined;
}

/** A backtick expression: a reference, or an aggregate over one (`sum(L[].f)`, `count(L)`). */
function refOperand(name: string): Operand | undefined {
  const agg = /^(sum|total|mean|avg|average|median|max|min|count|len)\s*\(\s*([^()]+?)\s*\)$/i.exec(name);
  if (agg) {
    const fn = ({ total: 'sum', avg: 'mean', average: 'mean', len: 'count' } as Record<string, AggFn>)[agg[1]!.toLowerCase()] ?? (agg[1]!.toLowerCase() as AggFn);
    return listField(agg[2]!, fn);
  }
  if (name.includes('[]')) return undefined;
  return { kind: 'ref', ref: name };
}

/** `L[].f` -> list L, field f; `L` -> list L, the items themselves. */
function listField(expr: string, fn: AggFn): Operand | undefined {
  const i = expr.indexOf('[]');
  if (i < 0) return fn === 'count' ? { kind: 'agg', fn, list: expr, field: '' } : undefined;
  const list = expr.slice(0, i);
  const field = expr.slice(i + 2).replace(/^\./, '');
  if (list === '' || field.includes('[]')) return undefined;
  return { kind: 'agg', fn, list, field };
}

function unquote(text: string): string | undefined {
  const m = /^["“'‘](.*)["”'’]$/.exec(text.trim());
  return m ? m[1] : undefined;
}

/** A right-hand operand: a reference, a quoted string, a date, a quantity. */
function constantOrRef(text: string, allowWord: boolean): Operand | undefined {
  const t = text.trim().replace(/^(?:that of|the value of|the|a|an)\s+/i, '');
  const r = ref(t);
  if (r !== undefined) return refOperand(r);
  const s = unquote(t);
  if (s !== undefined) return { kind: 'text', s };
  const d = parseDate(t);
  if (d) return { kind: 'date', d };
  const q = parseQuantity(t);
  if (q) return { kind: 'const', q };
  if (allowWord && /^[a-z][a-z_\- ]{0,30}$/i.test(t) && !COMPOUND.test(t) && !/\b(?:is|are|was|were|has|have)\b/i.test(t)) return { kind: 'text', s: t };
  return undefined;
}

/** A left-hand operand: a reference, or a plain noun phrase naming a field. */
function subject(text: string): Operand | undefined {
  const t = text.trim().replace(AUX, '').replace(COPULA, '').trim();
  const r = ref(t) ?? ref(t.replace(/\s+(?:[a-z]+ed|taken|made|sent|paid|done|held|given|seen|written|shown|set|come|become)$/i, ''));
  if (r !== undefined) return refOperand(r);
  if (!/^(?:the |its |their )?[a-z][a-z0-9 '’\-%()]*$/i.test(t) || /[`"]/.test(t) || COMPOUND.test(t)) return undefined;
  if (t.split(/\s+/).length > 7) return undefined;
  return { kind: 'label', phrase: t };
}

/** Splits at the one comparator phrase; undefined when there is none or more than one. */
function splitComparison(text: string): { lhs: string; cmp: Cmp; rhs: string } | undefined {
  const found = [...text.matchAll(COMPARATOR_RE)];
  if (found.length !== 1) return undefined;
  const m = found[0]!;
  return { lhs: text.slice(0, m.index), cmp: CMP_OF.get(m[0].toLowerCase())!, rhs: text.slice(m.index + m[0].length) };
}

/** "5 or more" -> "at least 5" (and the like), so that one comparator phrase carries the bound. */
function rewritePostfix(text: string): string {
  return text
    .replace(/(\S+(?:\s(?:thousand|million|k|%|percent|[a-z]+))?)\s+or\s+(?:more|greater|higher|above|over)\b/gi, 'at least $1')
    .replace(/(\S+(?:\s(?:thousand|million|k|%|percent|[a-z]+))?)\s+or\s+(?:less|fewer|lower|below|under)\b/gi, 'at most $1');
}

/** A condition's tail: "greater than 5", "equal to \"x\"", "set to true", "= 3". */
function condition(field: string, tail: string): ItemCond | undefined {
  const t = tail.trim().replace(/^(?:is|are|was|were|of)\s+/i, '');
  const set = /^(?:set to\s+)?(true|false)$/i.exec(t);
  if (set) return { field, cmp: 'eq', right: { kind: 'text', s: set[1]!.toLowerCase() } };
  const q = unquote(t);
  if (q !== undefined) return { field, cmp: 'eq', right: { kind: 'text', s: q } };
  const split = splitComparison(rewritePostfix(t));
  if (!split || split.lhs.trim() !== '') return undefined;
  const right = constantOrRef(split.rhs, split.cmp === 'eq' || split.cmp === 'ne');
  if (!right || right.kind === 'ref' || right.kind === 'agg') return undefined;
  return { field, cmp: split.cmp, right };
}

const QUANT_RE = new RegExp(
  String.raw`^(?:(?:does|do|is there|are there)\s+)?(any|some|every|each|all|all the|all of the|no|none of the)\s+(?:single\s+)?${ITEM}\s+(?:of|in)\s+\x60([^\x60]+)\x60\s+(?:that\s+)?(?:has|have|with|whose|where)\s+\x60([^\x60]+)\x60\s+(.+)$`,
  'i',
);
const BOUND = String.raw`(?:at least|at most|more than|fewer than|less than|exactly|over|under|no more than|no fewer than|no less than)`;
const COUNT_NOUL_RE = new RegExp(String.raw`^(?:are there|is there)\s+(${BOUND}\s+\S+|\S+\s+or\s+(?:more|fewer|less))\s+(?:[a-z]+\s+){0,2}(?:in|of|within)\s+\x60([^\x60]+)\x60$`, 'i');
const COUNT_VALUE_RE = new RegExp(
  String.raw`^(?:how many|count(?: the)?|the number of)\s+(?:of the\s+)?${ITEM}\s+(?:are there\s+)?(?:in|of)\s+\x60([^\x60]+)\x60(?:\s+(?:that\s+)?(?:have|has|with|whose|where)\s+\x60([^\x60]+)\x60\s+(.+))?$`,
  'i',
);
const SHARE_RE = new RegExp(
  String.raw`^what (?:share|percentage|proportion|percent) of (?:the\s+)?${ITEM}\s+(?:in|of)\s+\x60([^\x60]+)\x60\s+(?:that\s+)?(?:have|has|with|whose|where)\s+\x60([^\x60]+)\x60\s+(.+)$`,
  'i',
);
const AGG_VALUE_RE = /^(?:what is |what's |take |compute |find )?(?:the )?(mean|average|sum|total|median|maximum|max|minimum|min)\s+(?:value\s+)?of\s+`([^`]+)`$/i;

/** Strips framing, trailing punctuation and a closing question that only asks for the band. */
function normalise(text: string, forValue: boolean): string | undefined {
  let t = text.replace(/\s+/g, ' ').trim();
  if (forValue) {
    // "Take the median of `x`. How does the page perform?": the value, then a plain question.
    const m = /^([^?]*?[.:])\s+([A-Za-z][^`\d?]*\?)$/.exec(t);
    if (m) t = m[1]!;
  }
  t = t.replace(FRAME_PREFIX, '').replace(FRAME_SUFFIX, '').replace(/[?.:!]+$/, '').trim();
  if (t === '' || /[?]/.test(t) || /[.;!]\s/.test(t.replace(/`[^`]*`/g, '`x`'))) return undefined;
  return t;
}

/**
 * "Were more than two quotes received?", "Are there 6 or more people in the booking?": a count
 * of a noun against a number, for text states (the words after the noun must share the
 * counted number's sentence).
 */
function countedComparison(t: string): Query | undefined {
  const m = new RegExp(String.raw`^(?:were|was|are|is|did|do|does|has|have|had|will)\s+(?:there\s+)?(${BOUND})\s+(.+)$`, 'i').exec(rewritePostfix(t));
  if (!m) return undefined;
  const words = m[2]!.toLowerCase().split(/\s+/);
  const digits = parseDigits(words[0]!);
  const written = digits === undefined ? writtenNumber(words) : undefined;
  const n = digits ?? written?.value;
  const used = digits !== undefined ? 1 : (written?.used ?? 0);
  const noun = words[used];
  // "in total", "overall": a sum over several mentions, not one count.
  const rest = words.slice(used).join(' ');
  if (n === undefined || noun === undefined || !/^[a-z]+$/.test(noun) || unitOf(noun) || COMPOUND.test(rest) || /\b(?:total|altogether|overall|cumulative|so far|in all)\b/.test(rest)) return undefined;
  const context = phraseWords(words.slice(used + 1).join(' ')).filter((w) => !STOP.has(w));
  const cmp = CMP_OF.get(m[1]!.toLowerCase())!;
  return { kind: 'compare', left: { kind: 'counted', noun: stem(noun), context }, cmp, right: { kind: 'const', q: { value: n, dim: 'count', factor: 1, text: String(n) } } };
}


/** Reads a yes/no question; undefined when its wording is not one of the exact forms. */
export function parseNoul(text: string): Query | undefined {
  const t = normalise(text, false);
  if (t === undefined) return undefined;

  const quant = QUANT_RE.exec(t);
  if (quant) {
    const word = quant[1]!.toLowerCase();
    const cond = condition(quant[3]!, quant[4]!);
    if (!cond || NEGATION.test(quant[4]!.replace(/\b(?:no|not) (?:more|less|fewer|greater|later|earlier) than\b|\bnot equal to\b/gi, ''))) return undefined;
    const q = word === 'no' || word === 'none of the' ? 'none' : word === 'any' || word === 'some' ? 'any' : 'all';
    return { kind: 'quant', quant: q, list: quant[2]!, cond };
  }

  const stripped = t.replace(/\b(?:no|not) (?:more|less|fewer|greater|later|earlier) than\b|\bnot equal to\b/gi, '');
  if (NEGATION.test(stripped)) return undefined;

  const sym = /^`([^`]+)`\s*(>=|<=|!=|==|>|<|=|≥|≤|≠)\s*(.+)$/.exec(t);
  if (sym) {
    const left = refOperand(sym[1]!);
    const right = constantOrRef(sym[3]!, false);
    return left && right ? { kind: 'compare', left, cmp: CMP_OF.get(sym[2]!)!, right } : undefined;
  }

  const isCheck = /^(?:(?:is|was|are|were)\s+)?`([^`]+)`\s+(?:(?:is|was|are|were)\s+)?(?:set to\s+)?(true|false|empty|blank|missing|null|absent)$/i.exec(t);
  if (isCheck) {
    const left = refOperand(isCheck[1]!);
    const w = isCheck[2]!.toLowerCase();
    const what = w === 'true' || w === 'false' ? w : w === 'missing' || w === 'absent' ? 'missing' : 'empty';
    return left ? { kind: 'is', left, what } : undefined;
  }

  const isValue = /^(?:(?:is|was)\s+)?`([^`]+)`\s+(?:(?:is|was)\s+)?(?:set to\s+)?(["“'‘].*["”'’])$/i.exec(t);
  if (isValue) {
    const left = refOperand(isValue[1]!);
    return left ? { kind: 'compare', left, cmp: 'eq', right: { kind: 'text', s: unquote(isValue[2]!)! } } : undefined;
  }

  // "Is `env` set to staging?": a bare value after "set to" (not a bare word alone: "Is `plan` premium?" may describe rather than name).
  const setTo = /^(?:(?:is|was)\s+)?`([^`]+)`\s+(?:(?:is|was)\s+)?set to\s+([a-z0-9][\w\- ]{0,30})$/i.exec(t);
  if (setTo && !COMPOUND.test(setTo[2]!)) {
    const left = refOperand(setTo[1]!);
    return left ? { kind: 'compare', left, cmp: 'eq', right: constantOrRef(setTo[2]!, true)! } : undefined;
  }

  const within = /^(?:is|was|did|does)\s+`([^`]+)`\s+(?:[a-z]+\s+)?within\s+(.+?)\s+(days?|weeks?|months?)\s+(?:of|after|from)\s+`([^`]+)`$/i.exec(t);
  if (within) {
    const n = parseQuantity(within[2]!);
    const left = refOperand(within[1]!);
    const right = refOperand(within[4]!);
    if (!n || n.dim !== 'count' || !left || !right) return undefined;
    const unit = within[3]!.toLowerCase().replace(/s$/, '');
    return { kind: 'within', left, right, days: unit === 'day' ? n.value : unit === 'week' ? 7 * n.value : 0, months: unit === 'month' ? n.value : 0 };
  }

  const cal = /^(?:is|was|does|did)\s+`([^`]+)`\s+(?:fall\s+|land\s+)?(?:on\s+|in\s+)?(?:a\s+)?([a-z]+)$/i.exec(t);
  if (cal) {
    const left = refOperand(cal[1]!);
    const w = cal[2]!.toLowerCase();
    const day = WEEKDAYS.indexOf(w);
    const month = w.length > 3 ? monthOf(w) : undefined;
    if (left && (w === 'weekend' || w === 'weekday')) return { kind: 'calendar', left, what: 'weekend', value: w === 'weekend' ? 1 : 0 };
    if (left && day >= 0) return { kind: 'calendar', left, what: 'weekday', value: day };
    if (left && month !== undefined) return { kind: 'calendar', left, what: 'month', value: month };
  }

  const count = COUNT_NOUL_RE.exec(t);
  if (count) {
    const split = splitComparison(rewritePostfix(count[1]!));
    if (split && split.lhs.trim() === '') {
      const n = parseQuantity(split.rhs);
      if (n && n.dim === 'count') return { kind: 'compare', left: { kind: 'agg', fn: 'count', list: count[2]!, field: '' }, cmp: split.cmp, right: { kind: 'const', q: n } };
    }
    return undefined;
  }

  const counted = countedComparison(t);
  if (counted) return counted;

  const between = /^(.+?)\s+between\s+(.+?)\s+and\s+(.+)$/i.exec(t);
  if (between) {
    const left = subject(between[1]!);
    const lo = constantOrRef(between[2]!, false);
    const hi = constantOrRef(between[3]!, false);
    return left && lo && hi ? { kind: 'between', left, lo, hi } : undefined;
  }

  const implied = impliedComparison(t, subject, constantOrRef);
  if (implied !== null) return implied;

  const split = splitComparison(rewritePostfix(t));
  // No comparator: perhaps a boolean field named by plain words ("Has the invoice been paid?"),
  // never with a quantifier, a selection, a condition or a reference in the wording.
  if (!split) return COMPOUND.test(t) || /[`"“”]/.test(t) ? undefined : parseFlag(t);
  const left = subject(split.lhs);
  const right = constantOrRef(split.rhs, split.cmp === 'eq' || split.cmp === 'ne') ?? subject(split.rhs);
  if (!left || !right) return undefined;
  // Two named fields or a name against a word are too loose; one side is a constant or a reference.
  if (left.kind === 'label' && (right.kind === 'label' || right.kind === 'text')) return undefined;
  return personAge(left, split.cmp, right) ?? { kind: 'compare', left, cmp: split.cmp, right };
}
/** Reads a choice or score question's instructions as the value its options bucket; undefined otherwise. */
export function parseValue(text: string): Query | undefined {
  const t = normalise(text, true);
  if (t === undefined || NEGATION.test(t)) return undefined;
  const count = COUNT_VALUE_RE.exec(t);
  if (count) {
    if (count[2] === undefined) return { kind: 'value', of: { kind: 'agg', fn: 'count', list: count[1]!, field: '' } };
    const cond = condition(count[2], count[3]!);
    return cond ? { kind: 'value', of: { kind: 'agg', fn: 'count', list: count[1]!, field: '', cond } } : undefined;
  }
  const share = SHARE_RE.exec(t);
  if (share) {
    const cond = condition(share[2]!, share[3]!);
    return cond ? { kind: 'value', of: { kind: 'share', list: share[1]!, cond } } : undefined;
  }
  const agg = AGG_VALUE_RE.exec(t);
  if (agg) {
    const word = agg[1]!.toLowerCase();
    const fn = ({ average: 'mean', total: 'sum', maximum: 'max', minimum: 'min' } as Record<string, AggFn>)[word] ?? (word as AggFn);
    const of = listField(agg[2]!, fn);
    return of ? { kind: 'value', of } : undefined;
  }
  const plain = /^(?:what is |what's |value of |the value of )?`([^`]+)`$/i.exec(t);
  if (plain) {
    const of = refOperand(plain[1]!);
    return of ? { kind: 'value', of } : undefined;
  }
  return undefined;
}
