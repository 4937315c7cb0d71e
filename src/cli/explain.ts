/**
 * `evalmodel ask --explain`: for each question, whether the exact-answer stage answered it,
 * with the typed query it read, the operands it bound and the exact result, or why it left
 * the question to the model.
 * @module
 */
import { explainExact, type ExactExplanation } from '../exact/index.js';
import type { Value } from '../exact/fields.js';
import { BASE_UNIT } from '../exact/quantity.js';
import type { Question, State } from '../types.js';

function show(v: Value): string {
  switch (v.kind) {
    case 'number':
      return `${v.q.value}${BASE_UNIT[v.q.dim] ? ` ${BASE_UNIT[v.q.dim]}` : ''} (${v.q.dim})`;
    case 'date':
      return v.d.text;
    case 'boolean':
      return String(v.b);
    case 'string':
      return JSON.stringify(v.s);
    case 'list':
      return `a list of ${v.items.length}`;
    default:
      return v.kind;
  }
}

/** The explanations of every question of a (valid) request, keyed by question id. */
export function explainRequest(state: State, questions: Record<string, Question>): Record<string, ExactExplanation> {
  const out: Record<string, ExactExplanation> = {};
  for (const [id, q] of Object.entries(questions)) Object.defineProperty(out, id, { value: explainExact(state, q), enumerable: true });
  return out;
}

/** The explanations as text, one block per question. */
export function renderExplanations(explanations: Record<string, ExactExplanation>): string {
  const lines = ['', 'Exact-answer stage:'];
  for (const [id, e] of Object.entries(explanations)) {
    lines.push(`  ${id}: ${e.answered ? 'answered exactly' : `left to the model (${e.reason})`}`);
    if (e.query) lines.push(`    query  ${JSON.stringify(e.query)}`);
    for (const b of e.bound) lines.push(`    bound  ${b.from} = ${show(b.value)}`);
    if (e.result !== undefined) lines.push(`    result ${typeof e.result === 'boolean' ? String(e.result) : `option ${JSON.stringify(e.result.key)}`}`);
  }
  return `${lines.join('\n')}\n`;
}
