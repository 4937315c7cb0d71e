/**
 * Questions that compare two fields of the state ("How similar are `draft` and `final`?",
 * "Does `summary` say the same as `report`?"). Token-level alignment of the question with the
 * whole state cannot tell how close two parts of the state are to each other, so such a
 * question gets one more input: the cosine between the mean token states of the two fields'
 * values, read from the state's one cached encoding (no extra encoder work).
 *
 * A field's span is found from the canonical form: it writes an object's fields in order, one
 * labelled block each, and the tokenizer cuts at spaces, so each block's own tokens, counted
 * in order, locate its value among the state's tokens. Every block is checked against the
 * state's own token ids; a field whose span cannot be located exactly gives no pair (the heads
 * then see "no pair").
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

/**
 * Where a question's references are read: the instructions string, or every string field of
 * structured instructions (whose own field names are not state references).
 */
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

/** Whether `ids`, from position `at`, starts with `prefix`. */
function startsWithIds(ids: readonly number[], prefix: readonly number[], at = 0): boolean {
  if (at + prefix.length > ids.length) return false;
  for (let i = 0; i < prefix.length; i++) if (ids[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * The value spans of the state's top-level fields among `stateIds`, for every field whose value
 * is one labelled block (`name: value`; not nested objects, whose lines carry dotted labels).
 * Each field's block is rendered and tokenized on its own, once, and checked against the state's
 * own token ids. Where a block's tokens differ in context (the tokenizer's choice at the block's
 * edge), that block is counted through the whole text before it instead; where even that does
 * not match, the remaining fields get no span.
 */
export function fieldSpans(state: State, stateIds: readonly number[], tokenize: Tokenize): Map<string, Span> {
  const spans = new Map<string, Span>();
  if (!isObjectState(state)) return spans;
  const entries = Object.entries(state).filter(([, v]) => v !== undefined);
  const blocks = entries.map(([k, v]) => renderState({ [k]: v } as JsonObject));
  if (blocks.join('\n') !== renderState(state)) return spans;
  /** Token count of `text` if the state's tokens start with its tokens, else -1. */
  const prefixCount = (text: string) => {
    const ids = tokenize(text);
    return startsWithIds(stateIds, ids) ? ids.length : -1;
  };
  let at = 0;
  for (const [i, [name]] of entries.entries()) {
    const block = blocks[i]!;
    const label = `${sanitizeLabel(name)}:`;
    const hasLabel = block.startsWith(label);
    const ids = tokenize(block);
    const labelIds = hasLabel ? tokenize(label) : [];
    let end = at + ids.length;
    let labelEnd = hasLabel ? at + labelIds.length : -1;
    if (!startsWithIds(stateIds, ids, at) || !startsWithIds(ids, labelIds)) {
      const before = blocks.slice(0, i).join('\n');
      end = prefixCount(before === '' ? block : `${before}\n${block}`);
      if (end < 0) return spans;
      labelEnd = hasLabel ? prefixCount(before === '' ? label : `${before}\n${label}`) : -1;
    }
    if (hasLabel && labelEnd > at && labelEnd < end) spans.set(name, { start: labelEnd, end });
    at = end;
  }
  return spans;
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
 * The pair input of each question against one state, in order: the cosine between the two
 * state fields it compares, or null when it names fewer than two fields or their spans cannot
 * be located. The spans are found once, and only when some question compares fields.
 */
export function pairSimilarities(
  questions: readonly Question[],
  state: State,
  stateIds: readonly number[],
  tokenStates: Float32Array,
  tokenize: Tokenize,
): (number | null)[] {
  const pairs = questions.map((q) => referencedPair(q, state));
  if (pairs.every((p) => p === null)) return pairs.map(() => null);
  const spans = fieldSpans(state, stateIds, tokenize);
  return pairs.map((pair) => {
    const a = pair && spans.get(pair[0]);
    const b = pair && spans.get(pair[1]);
    if (!a || !b || tokenStates.length < Math.max(a.end, b.end) * HIDDEN) return null;
    return spanCosine(tokenStates, a, b);
  });
}
