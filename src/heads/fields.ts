/**
 * Questions that compare two fields of the state ("How similar are `draft` and `final`?",
 * "Does `summary` say the same as `report`?"). Token-level alignment of the question with the
 * whole state cannot tell how close two parts of the state are to each other, so such a
 * question gets one more input: the cosine between the mean token states of the two fields'
 * values, read from the state's one cached encoding (no extra encoder work).
 *
 * A field's span is found by rendering the state's leading fields: the canonical form writes
 * an object's fields in order, one labelled block each, and the tokenizer cuts at spaces, so
 * the token count of the text up to a field's label and up to its end locates its value among
 * the state's tokens. Every step is checked against the state's own token ids; a field whose
 * span cannot be located exactly gives no pair (the heads then see "no pair").
 * @module
 */
import { renderState, sanitizeLabel } from '../canonical/index.js';
import type { JsonObject, Question, State } from '../types.js';
import { HIDDEN } from './late.js';

/** Token ids of a text, as the engine tokenizes it. */
export type Tokenize = (text: string) => number[];

/** Tokens [start, end) of a field's value among the state's tokens. */
export interface Span {
  start: number;
  end: number;
}

const REFERENCE = /`([^`\n]+)`/g;

function isObjectState(state: State): state is JsonObject {
  return typeof state === 'object' && state !== null && !Array.isArray(state);
}

/** The question's own text: the instructions string, or the structured form's question field's. */
function questionText(question: Question): { text: string; dataFields: ReadonlySet<string> } {
  const instructions = question.instructions as unknown;
  if (typeof instructions === 'string') return { text: instructions, dataFields: new Set() };
  if (typeof instructions !== 'object' || instructions === null || Array.isArray(instructions)) return { text: '', dataFields: new Set() };
  const entries = Object.entries(instructions as Record<string, unknown>);
  // Every string is searched: references to the state may sit in any field's text.
  const text = entries.flatMap(([, v]) => (typeof v === 'string' ? [v] : [])).join('\n');
  return { text, dataFields: new Set(entries.map(([k]) => k)) };
}

/**
 * The first two distinct top-level state fields the question names in backticks, or null.
 * Names that are also fields of structured instructions refer to those, not to the state.
 */
export function referencedPair(question: Question, state: State): [string, string] | null {
  if (!isObjectState(state)) return null;
  const { text, dataFields } = questionText(question);
  const names: string[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const name = match[1]!;
    if (names.includes(name) || dataFields.has(name) || !Object.hasOwn(state, name) || state[name] === undefined) continue;
    names.push(name);
    if (names.length === 2) return [names[0]!, names[1]!];
  }
  return null;
}

function startsWithIds(ids: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > ids.length) return false;
  for (let i = 0; i < prefix.length; i++) if (ids[i] !== prefix[i]) return false;
  return true;
}

/** The value span of top-level field `name` among `stateIds`, or null when it cannot be located exactly. */
export function fieldSpan(state: State, stateIds: readonly number[], tokenize: Tokenize, name: string): Span | null {
  if (!isObjectState(state)) return null;
  const entries = Object.entries(state).filter(([, v]) => v !== undefined);
  const at = entries.findIndex(([k]) => k === name);
  if (at < 0) return null;
  const full = renderState(state);
  const before = at === 0 ? '' : renderState(Object.fromEntries(entries.slice(0, at)) as JsonObject);
  const through = renderState(Object.fromEntries(entries.slice(0, at + 1)) as JsonObject);
  const label = `${before}${at === 0 ? '' : '\n'}${sanitizeLabel(name)}:`;
  if (!full.startsWith(through) || !through.startsWith(label) || (through.length < full.length && full[through.length] !== '\n')) return null;
  const labelIds = tokenize(label);
  const throughIds = tokenize(through);
  if (!startsWithIds(throughIds, labelIds) || !startsWithIds(stateIds, throughIds) || throughIds.length <= labelIds.length) return null;
  return { start: labelIds.length, end: throughIds.length };
}

function meanRow(tokens: Float32Array, span: Span): Float64Array {
  const mean = new Float64Array(HIDDEN);
  for (let t = span.start; t < span.end; t++) for (let h = 0; h < HIDDEN; h++) mean[h]! += tokens[t * HIDDEN + h]!;
  return mean;
}

/** Cosine of the two spans' mean token states (the scale of the means cancels). */
export function spanCosine(tokens: Float32Array, a: Span, b: Span): number {
  const x = meanRow(tokens, a);
  const y = meanRow(tokens, b);
  let dot = 0;
  let xx = 0;
  let yy = 0;
  for (let h = 0; h < HIDDEN; h++) {
    dot += x[h]! * y[h]!;
    xx += x[h]! * x[h]!;
    yy += y[h]! * y[h]!;
  }
  return xx > 0 && yy > 0 ? dot / Math.sqrt(xx * yy) : 0;
}

/**
 * The pair input of one question: the cosine between the two state fields it compares, or
 * null when it names fewer than two fields or their spans cannot be located.
 */
export function pairSimilarity(question: Question, state: State, stateIds: readonly number[], tokenStates: Float32Array, tokenize: Tokenize): number | null {
  const pair = referencedPair(question, state);
  if (!pair || tokenStates.length < stateIds.length * HIDDEN) return null;
  const a = fieldSpan(state, stateIds, tokenize, pair[0]);
  const b = fieldSpan(state, stateIds, tokenize, pair[1]);
  return a && b ? spanCosine(tokenStates, a, b) : null;
}
