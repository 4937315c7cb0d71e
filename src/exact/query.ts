/**
 * The typed queries the exact stage understands. A question's wording is read into one of
 * these only when it is unambiguous (parse.ts); evaluate.ts computes it on the state.
 * @module
 */
import type { DateValue } from './dates.js';
import type { Quantity } from './quantity.js';

/** Comparators; `eq`/`ne` also compare strings, booleans and dates. */
export type Cmp = 'gt' | 'ge' | 'lt' | 'le' | 'eq' | 'ne';

/** A condition on each item of a list: the item's field (a relative reference, '' for the item itself) against a constant. */
export interface ItemCond {
  field: string;
  cmp: Cmp;
  right: Operand;
}

/** Aggregates over a list (of items, or of a field's values with `[]`). */
export type AggFn = 'sum' | 'mean' | 'median' | 'min' | 'max' | 'count';

/** Where a value comes from. */
export type Operand =
  /** A backtick reference to a field of the state or of structured instructions' data. */
  | { kind: 'ref'; ref: string }
  /**
   * A field or a text-state number named by the question's words; `plain`: only a field whose
   * value has no unit binds (an age asked with a bare number of years).
   */
  | { kind: 'label'; phrase: string; plain?: boolean }
  /** In a text state: the one number counting `noun` ("3 quotes", "sixty users") in a sentence holding every `context` word. */
  | { kind: 'counted'; noun: string; context: string[] }
  /** A number with its unit. */
  | { kind: 'const'; q: Quantity }
  /** A date constant. */
  | { kind: 'date'; d: DateValue }
  /** A quoted string, or a bare word compared by equality. */
  | { kind: 'text'; s: string }
  /** An aggregate over a referenced list; `count` may filter items by a condition. */
  | { kind: 'agg'; fn: AggFn; list: string; field: string; cond?: ItemCond }
  /** The share (percent) of a list's items that satisfy a condition. */
  | { kind: 'share'; list: string; cond: ItemCond };

/** A yes/no query, or a value query for choice and score questions. */
export type Query =
  | { kind: 'compare'; left: Operand; cmp: Cmp; right: Operand }
  | { kind: 'between'; left: Operand; lo: Operand; hi: Operand }
  | { kind: 'is'; left: Operand; what: 'true' | 'false' | 'empty' | 'missing' }
  | { kind: 'quant'; quant: 'any' | 'all' | 'none'; list: string; cond: ItemCond }
  | { kind: 'within'; left: Operand; right: Operand; days: number; months: number }
  | { kind: 'calendar'; left: Operand; what: 'weekday' | 'weekend' | 'month'; value: number }
  /**
   * Whether a boolean field named by the question's plain words holds ("Has the invoice been
   * paid?"): the content words in order (articles and auxiliaries left out), whether the
   * auxiliary was "did" (so "pay" names `paid`) and whether the wording is passive (flags.ts).
   */
  | { kind: 'flag'; words: string[]; did: boolean; passive: boolean }
  | { kind: 'value'; of: Operand };
