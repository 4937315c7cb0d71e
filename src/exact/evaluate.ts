/**
 * Evaluating a typed query exactly on the state: operands are bound (references first, then a
 * named field of a JSON state, then a named number with the constant's unit in a text state),
 * compared in base units, dates as days. Any operand that does not bind, any comparison across
 * dimensions and any missing field in a list makes the result undefined: the stage abstains.
 * @module
 */
import { addMonths, compareDates, daysBetween, weekday, type DateValue } from './dates.js';
import { keyWords, lastKey, readValue, resolve, type Value } from './fields.js';
import { bindLabel } from './label-binding.js';
import { bindFlag } from './flags.js';
import { comparable, compatible, unitFromName } from './quantity.js';
import type { Cmp, ItemCond, Operand, Query } from './query.js';
import { bindCounted, bindText } from './text-binding.js';

/** What the operands are bound against. */
export interface Context {
  /** The request's state. */
  state: unknown;
  /** Data fields of structured instructions (references to them win), or undefined. */
  data?: Record<string, unknown>;
}

/** A bound operand, for explanations: where it came from and what it holds. */
export interface Bound {
  from: string;
  value: Value;
}

/** Records every binding of one evaluation. */
export type Trace = Bound[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function rootKey(ref: string): string {
  return /^[^.[]*/.exec(ref)![0];
}

/** Resolves a reference in the instructions' data or in the state, never in both. */
function resolveRef(ctx: Context, ref: string): { value: unknown; many: boolean } | undefined {
  const inData = ctx.data !== undefined && (Object.prototype.hasOwnProperty.call(ctx.data, ref) || Object.prototype.hasOwnProperty.call(ctx.data, rootKey(ref)));
  const fromData = inData ? resolve(ctx.data, ref) : undefined;
  const fromState = resolve(ctx.state, ref);
  if (fromData && fromState) return undefined;
  return fromData ?? fromState;
}

function fold(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** Compares two values; undefined when they are not comparable that way. */
export function compareValues(a: Value, cmp: Cmp, b: Value): boolean | undefined {
  let order: number | undefined;
  if (a.kind === 'number' && b.kind === 'number') {
    const pair = comparable(a.q, b.q);
    if (!pair) return undefined;
    order = near(pair[0], pair[1]) ? 0 : pair[0] - pair[1];
  } else if (a.kind === 'date' && b.kind === 'date') {
    order = compareDates(a.d, b.d);
  } else if (cmp === 'eq' || cmp === 'ne') {
    const text = (v: Value): string | undefined =>
      v.kind === 'string' ? fold(v.s) : v.kind === 'boolean' ? String(v.b) : v.kind === 'number' && v.q.dim === 'count' ? String(v.q.value) : undefined;
    const [x, y] = [text(a), text(b)];
    if (x === undefined || y === undefined || x === '' || y === '') return undefined;
    // A boolean compares only with true/false or yes/no.
    const asBool = (t: string) => (t === 'true' || t === 'yes' ? 'true' : t === 'false' || t === 'no' ? 'false' : undefined);
    const boolean = a.kind === 'boolean' || b.kind === 'boolean';
    if (boolean && (asBool(x) === undefined || asBool(y) === undefined)) return undefined;
    const equal = boolean ? asBool(x) === asBool(y) : x === y;
    return cmp === 'eq' ? equal : !equal;
  }
  if (order === undefined) return undefined;
  switch (cmp) {
    case 'gt': return order > 0;
    case 'ge': return order >= 0;
    case 'lt': return order < 0;
    case 'le': return order <= 0;
    case 'eq': return order === 0;
    case 'ne': return order !== 0;
  }
}

/** The items of a referenced list, or undefined. */
function listItems(ctx: Context, list: string, trace: Trace): unknown[] | undefined {
  const r = resolveRef(ctx, list);
  if (!r || r.many || !Array.isArray(r.value)) return undefined;
  trace.push({ from: `\`${list}\``, value: { kind: 'list', items: r.value } });
  return r.value;
}

function itemValue(item: unknown, field: string): Value | undefined {
  if (field === '') return readValue(item);
  const r = resolve(item, field);
  if (!r || r.many) return undefined;
  return readValue(r.value, lastKey(field));
}

function itemHolds(item: unknown, cond: ItemCond, right: Value): boolean | undefined {
  const v = itemValue(item, cond.field);
  return v === undefined ? undefined : compareValues(v, cond.cmp, right);
}

/** Truth of a condition for every item; undefined when any item cannot be judged. */
function holds(items: unknown[], cond: ItemCond, ctx: Context, trace: Trace): boolean[] | undefined {
  const right = bind(cond.right, ctx, trace, undefined);
  if (!right) return undefined;
  const out: boolean[] = [];
  for (const item of items) {
    const h = itemHolds(item, cond, right);
    if (h === undefined) return undefined;
    out.push(h);
  }
  return out;
}

function aggregate(fn: string, values: Value[]): Value | undefined {
  if (values.length === 0 || values.some((v) => v.kind !== 'number')) return undefined;
  const qs = values.map((v) => (v as Extract<Value, { kind: 'number' }>).q);
  const dim = qs[0]!.dim;
  if (qs.some((q) => q.dim !== dim)) return undefined;
  const xs = qs.map((q) => q.value);
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const value =
    fn === 'sum' ? xs.reduce((a, b) => a + b, 0)
      : fn === 'mean' ? xs.reduce((a, b) => a + b, 0) / xs.length
        : fn === 'median' ? (sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2)
          : fn === 'min' ? sorted[0]!
            : sorted[sorted.length - 1]!;
  return { kind: 'number', q: { value, dim, factor: qs[0]!.factor ?? 1, text: `${fn} of ${xs.length}` } };
}

/**
 * Binds one operand to a value. `other` is the opposite operand's value, which tells a named
 * field's kind and a text state's unit.
 */
export function bind(op: Operand, ctx: Context, trace: Trace, other: Value | undefined): Value | undefined {
  let v: Value | undefined;
  let from = '';
  switch (op.kind) {
    case 'const':
      return { kind: 'number', q: op.q };
    case 'date':
      return { kind: 'date', d: op.d };
    case 'text':
      return { kind: 'string', s: op.s };
    case 'ref': {
      const r = resolveRef(ctx, op.ref);
      if (r && !r.many) {
        v = readValue(r.value, lastKey(op.ref));
        from = `\`${op.ref}\``;
        break;
      }
      // A text state has no fields: a reference binds there as the label its key words make
      // ("`opening_balance`" as "the opening balance"), so it never binds worse than a label.
      // (Never for a reference into the instructions' data: a missing data field is not the text's.)
      const inData = ctx.data !== undefined && Object.prototype.hasOwnProperty.call(ctx.data, rootKey(op.ref));
      const phrase = typeof ctx.state === 'string' && !r && !inData ? refPhrase(op.ref, other) : undefined;
      if (phrase === undefined || other?.kind !== 'number') return undefined;
      const q = bindText(ctx.state as string, phrase, other.q.dim);
      if (!q) return undefined;
      v = { kind: 'number', q };
      from = `\`${op.ref}\` -> state text "${(ctx.state as string).slice(Math.max(0, q.start - 40), q.end)}"`;
      break;
    }
    case 'counted': {
      if (typeof ctx.state !== 'string') return undefined;
      const n = bindCounted(ctx.state, op.noun, op.context);
      if (n === undefined) return undefined;
      v = { kind: 'number', q: { value: n, dim: 'count', factor: 1, text: String(n) } };
      from = `"${op.noun}" counted in the state text`;
      break;
    }
    case 'label': {
      if (!other || (other.kind !== 'number' && other.kind !== 'date')) return undefined;
      if (typeof ctx.state === 'string') {
        if (other.kind !== 'number') return undefined;
        const q = bindText(ctx.state, op.phrase, other.q.dim);
        if (!q) return undefined;
        v = { kind: 'number', q };
        from = `"${op.phrase}" -> state text "${ctx.state.slice(Math.max(0, q.start - 40), q.end)}"`;
      } else {
        const leaf = bindLabel(
          ctx.state,
          op.phrase,
          (l) => {
            const lv = readValue(l.value, l.keys[l.keys.length - 1]);
            if (op.plain && (lv.kind !== 'number' || lv.q.dim !== 'count')) return false;
            return other.kind === 'number' ? lv.kind === 'number' && compatible(lv.q.dim, other.q.dim) : lv.kind === 'date';
          },
          other.kind === 'date' ? DATE_WORDS : NUMBER_WORDS,
        );
        if (!leaf) return undefined;
        v = readValue(leaf.value, leaf.keys[leaf.keys.length - 1]);
        from = `"${op.phrase}" -> \`${leaf.path}\``;
      }
      break;
    }
    case 'agg': {
      const items = listItems(ctx, op.list, trace);
      if (!items) return undefined;
      if (op.fn === 'count') {
        const flags = op.cond ? holds(items, op.cond, ctx, trace) : items.map(() => true);
        if (!flags) return undefined;
        v = { kind: 'number', q: { value: flags.filter(Boolean).length, dim: 'count', text: 'count' } };
      } else {
        const values = items.map((item) => itemValue(item, op.field));
        if (values.some((x) => x === undefined)) return undefined;
        v = aggregate(op.fn, values as Value[]);
      }
      from = `${op.fn}(\`${op.list}\`${op.field ? `[].${op.field}` : ''})`;
      break;
    }
    case 'share': {
      const items = listItems(ctx, op.list, trace);
      if (!items || items.length === 0) return undefined;
      const flags = holds(items, op.cond, ctx, trace);
      if (!flags) return undefined;
      v = { kind: 'number', q: { value: (100 * flags.filter(Boolean).length) / items.length, dim: 'percent', text: 'share' } };
      from = `share of \`${op.list}\``;
      break;
    }
  }
  if (v) trace.push({ from, value: v });
  return v;
}

/**
 * The label a reference's key words make in a text state: `opening_balance` -> "opening balance",
 * `order.total` -> "order total". A unit in the name must be the constant's (`total_eur` against
 * $100 does not bind); list steps and indexes never bind in text.
 */
function refPhrase(ref: string, other: Value | undefined): string | undefined {
  if (!/^[A-Za-z][\w]*(?:\.[A-Za-z][\w]*)*$/.test(ref) || other?.kind !== 'number') return undefined;
  const words = ref.split('.').flatMap(keyWords);
  const unit = unitFromName(words);
  if (unit && unit.dim !== other.q.dim) return undefined;
  const phrase = (unit ? words.slice(0, -1) : words).join(' ');
  return phrase === '' ? undefined : phrase;
}

/** Words that name the kind of a field, not which one: "the departure date" is `departure`. */
const DATE_WORDS: ReadonlySet<string> = new Set(['date', 'time', 'day', 'datetime', 'timestamp', 'at', 'on']);
const NUMBER_WORDS: ReadonlySet<string> = new Set(['figure']);

const fixed = (op: Operand) => op.kind === 'const' || op.kind === 'date' || op.kind === 'text';

function withYear(d: DateValue): (DateValue & { year: number }) | undefined {
  return d.year === undefined ? undefined : (d as DateValue & { year: number });
}

/** Evaluates a query: a boolean for yes/no forms, a value for `value`; undefined to abstain. */
export function evaluateQuery(query: Query, ctx: Context, trace: Trace): boolean | Value | undefined {
  switch (query.kind) {
    case 'compare': {
      // Bind the side that does not depend on the other first (a constant or a reference).
      const [first, second] = fixed(query.right) || query.left.kind === 'label' ? [query.right, query.left] : [query.left, query.right];
      const a = bind(first, ctx, trace, undefined);
      if (!a) return undefined;
      const b = bind(second, ctx, trace, a);
      if (!b) return undefined;
      const [l, r] = first === query.left ? [a, b] : [b, a];
      return compareValues(l, query.cmp, r);
    }
    case 'between': {
      const lo = bind(query.lo, ctx, trace, undefined);
      const hi = bind(query.hi, ctx, trace, undefined);
      if (!lo || !hi) return undefined;
      const v = bind(query.left, ctx, trace, lo);
      if (!v) return undefined;
      const above = compareValues(v, 'ge', lo);
      const below = compareValues(v, 'le', hi);
      return above === undefined || below === undefined ? undefined : above && below;
    }
    case 'is': {
      if (query.left.kind !== 'ref') return undefined;
      const ref = query.left.ref;
      const r = resolveRef(ctx, ref);
      if (query.what === 'missing') {
        const parent = ref.includes('.') ? resolveRef(ctx, ref.slice(0, ref.lastIndexOf('.'))) : { value: ctx.data && rootKey(ref) in ctx.data ? ctx.data : ctx.state, many: false };
        if (!parent || parent.many || !isObject(parent.value)) return undefined;
        const missing = r === undefined || r.value === null;
        trace.push({ from: `\`${ref}\``, value: r ? readValue(r.value) : { kind: 'null' } });
        return missing;
      }
      if (!r || r.many) return undefined;
      const v = readValue(r.value, lastKey(ref));
      trace.push({ from: `\`${ref}\``, value: v });
      if (query.what === 'empty') {
        if (v.kind === 'null') return true;
        if (v.kind === 'string') return v.s.trim() === '';
        if (v.kind === 'list') return v.items.length === 0;
        if (v.kind === 'object') return Object.keys(r.value as object).length === 0;
        return undefined;
      }
      return v.kind === 'boolean' ? v.b === (query.what === 'true') : undefined;
    }
    case 'quant': {
      const items = listItems(ctx, query.list, trace);
      if (!items || items.length === 0) return undefined;
      const flags = holds(items, query.cond, ctx, trace);
      if (!flags) return undefined;
      return query.quant === 'any' ? flags.some(Boolean) : query.quant === 'all' ? flags.every(Boolean) : !flags.some(Boolean);
    }
    case 'within': {
      const a = bind(query.left, ctx, trace, undefined);
      const b = bind(query.right, ctx, trace, undefined);
      if (a?.kind !== 'date' || b?.kind !== 'date') return undefined;
      if (query.months > 0) {
        const [x, y] = [withYear(a.d), withYear(b.d)];
        if (!x || !y) return undefined;
        const [early, late] = compareDates(x, y)! <= 0 ? [x, y] : [y, x];
        return compareDates(late, addMonths(early, query.months))! <= 0;
      }
      const days = daysBetween(a.d, b.d);
      return days === undefined ? undefined : Math.abs(days) <= query.days;
    }
    case 'calendar': {
      const a = bind(query.left, ctx, trace, undefined);
      if (a?.kind !== 'date') return undefined;
      const d = withYear(a.d);
      if (query.what === 'month') return a.d.month === query.value;
      if (!d) return undefined;
      const w = weekday(d);
      return query.what === 'weekday' ? w === query.value : (w === 0 || w === 6) === (query.value === 1);
    }
    case 'flag': {
      // Named by plain words: the state's own fields only (instructions' data is referenced by backticks).
      const found = bindFlag(ctx.state, query);
      if (!('path' in found)) return undefined;
      trace.push({ from: `"${query.words.join(' ')}" -> \`${found.path}\``, value: { kind: 'boolean', b: found.value } });
      return found.value;
    }
    case 'value': {
      const v = bind(query.of, ctx, trace, undefined);
      return v && (v.kind === 'number' || v.kind === 'date') ? v : undefined;
    }
  }
}
