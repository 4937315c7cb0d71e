/**
 * The exact-answer stage, between canonicalization and the model: a question whose wording is
 * one of the unambiguous forms of parse.ts, and whose operands bind to the state's data, is
 * answered by computing the result exactly; every other question is left to the model
 * (`abstain`). See docs/exact-answers.md.
 *
 * What is answered and how sure: an exact result is right unless the question meant something
 * else than its plain reading, so its probability is the precision measured where the stage
 * fired on the calibration split of the training corpus (calibration.ts), not 1.
 * @module
 */
import { findQuestionField } from '../canonical/instructions.js';
import { choiceAnswer, noulAnswer, scoreAnswer } from '../heads/index.js';
import type { Answer, Question, State } from '../types.js';
import { EXACT_PROBABILITY } from './calibration.js';
import { evaluateQuery, type Bound, type Context } from './evaluate.js';
import { bindFlag } from './flags.js';
import { matchOutcome } from './outcomes.js';
import { parseNoul, parseValue } from './parse.js';
import type { Query } from './query.js';

export type { Query } from './query.js';
export { EXACT_PROBABILITY } from './calibration.js';

/** Why the stage answered or abstained, for `ask --explain` and debugging. */
export interface ExactExplanation {
  /** Whether the stage answered the question. */
  answered: boolean;
  /** The question text the stage read (a structured instruction's question field). */
  text?: string;
  /** The typed query, when the wording was read. */
  query?: Query;
  /** The operands as bound: where each came from and its value. */
  bound: Bound[];
  /** The exact result: a truth value, or the index of the option or level that holds the value. */
  result?: boolean | { index: number; key: string };
  /** Why it abstained. */
  reason?: string;
}

/** The answer of the stage: the typed answer, or none (the model answers). */
export interface ExactOutcome {
  answer?: Answer;
  explanation: ExactExplanation;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The question text and the data fields it may reference. Structured instructions are read only
 * when every data field is referenced by the question text: an unreferenced field (a rule, a
 * policy, a definition) may change what the question means.
 */
function questionText(question: Question): { text: string; data?: Record<string, unknown> } | string {
  const ins = question.instructions;
  if (typeof ins === 'string') return { text: ins };
  if (!isObject(ins)) return 'the instructions are not a text or a structured object';
  const key = findQuestionField(ins);
  if (key === undefined) return 'the structured instructions have no question text';
  const text = ins[key] as string;
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ins)) {
    if (k === key) continue;
    if (!text.includes(`\`${k}\``) && !text.includes(`\`${k}.`) && !text.includes(`\`${k}[`)) return `the data field '${k}' is not referenced by the question and may change its meaning`;
    Object.defineProperty(data, k, { value: v, enumerable: true });
  }
  return { text, data };
}

function hasNoulCriteria(question: Question): boolean {
  if (question.type !== 'noul' || !isObject(question.criteria)) return false;
  const c = question.criteria as Record<string, unknown>;
  return (c.true !== null && c.true !== undefined) || (c.false !== null && c.false !== undefined);
}

/** The last string state read as JSON: the stage runs once per question of a request, on the same state. */
let lastJson: { text: string; data: unknown } | undefined;

/**
 * The data the stage binds against. A string state whose whole text is one JSON object or array
 * (`evalmodel ask '{"total":"$45.20"}'` without `--json-state`, a document sent as text) states
 * exactly those fields, so it is read as that data: a reference, a named field and a named
 * boolean bind as they do in a JSON state. Any other string stays a text state.
 */
export function stateData(state: State): unknown {
  if (typeof state !== 'string') return state;
  const t = state.trim();
  if (!(t.startsWith('{') && t.endsWith('}')) && !(t.startsWith('[') && t.endsWith(']'))) return state;
  if (lastJson?.text === state) return lastJson.data;
  let data: unknown = state;
  try {
    const v: unknown = JSON.parse(t);
    if (typeof v === 'object' && v !== null) data = v;
  } catch {
    // Not JSON after all: a text state that starts with a brace.
  }
  lastJson = { text: state, data };
  return data;
}

/** Spreads the probability not on the decided outcome evenly over the others. */
function spread(n: number, index: number, p: number): number[] {
  if (n === 1) return [1];
  return Array.from({ length: n }, (_, i) => (i === index ? p : (1 - p) / (n - 1)));
}

/**
 * Answers a question exactly when its wording and the state decide it; otherwise returns no
 * answer and the reason. Never throws: a failure inside the stage is an abstention.
 */
export function exactAnswer(state: State, question: Question): ExactOutcome {
  const bound: Bound[] = [];
  try {
    return decide(state, question, bound);
  } catch (error) {
    return { explanation: { answered: false, bound, reason: `internal: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

function decide(state: State, question: Question, bound: Bound[]): ExactOutcome {
  const abstain = (reason: string, extra: Partial<ExactExplanation> = {}): ExactOutcome => ({ explanation: { answered: false, bound, reason, ...extra } });
  if (hasNoulCriteria(question)) return abstain('noul criteria redefine what counts as yes and no');
  const read = questionText(question);
  if (typeof read === 'string') return abstain(read);
  const { text, data } = read;
  const ctx: Context = { state: stateData(state), ...(data ? { data } : {}) };

  if (question.type === 'noul') {
    const query = parseNoul(text);
    if (!query) return abstain('the wording is not one of the exact forms', { text });
    const result = evaluateQuery(query, ctx, bound);
    if (typeof result !== 'boolean') {
      const why = query.kind === 'flag' ? (bindFlag(ctx.state, query) as { reason?: string }).reason : undefined;
      return abstain(why ?? 'an operand did not bind to the state, or the operands do not compare', { text, query });
    }
    const p = EXACT_PROBABILITY;
    return { answer: noulAnswer(result ? p : 1 - p), explanation: { answered: true, text, query, bound, result } };
  }

  const query = parseValue(text);
  if (!query) return abstain('the wording is not one of the exact forms', { text });
  const value = evaluateQuery(query, ctx, bound);
  if (value === undefined || typeof value === 'boolean') return abstain('the value did not bind to the state', { text, query });
  if (question.type === 'choice') {
    const criteria = isObject(question.criteria) ? question.criteria : {};
    const keys = Object.keys(criteria);
    const match = matchOutcome(keys.map((k) => ({ name: k, description: criteria[k] })), value);
    if (!match) return abstain('the options do not single out the value', { text, query });
    const answer = choiceAnswer(keys, spread(keys.length, match.index, EXACT_PROBABILITY));
    return { answer, explanation: { answered: true, text, query, bound, result: { index: match.index, key: keys[match.index]! } } };
  }
  const levels = Array.isArray(question.criteria) ? question.criteria : [];
  const match = matchOutcome(levels.map((description) => ({ description })), value);
  if (!match) return abstain('the levels do not single out the value', { text, query });
  const answer = scoreAnswer(levels, spread(levels.length, match.index, EXACT_PROBABILITY));
  return { answer, explanation: { answered: true, text, query, bound, result: { index: match.index, key: String(match.index) } } };
}

/**
 * Why the stage answers or abstains on a question: the parsed query, the bound operands and the
 * exact result (`evalmodel ask --explain`).
 * @example
 * explainExact({ total_eur: 1250 }, { type: 'noul', instructions: 'Is `total_eur` below 100?' });
 * // { answered: true, query: { kind: 'compare', ... }, bound: [...], result: false }
 */
export function explainExact(state: State, question: Question): ExactExplanation {
  return exactAnswer(state, question).explanation;
}
