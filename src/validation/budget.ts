/**
 * Token-budget checks. They run after tokenisation (only the tokenizer knows the counts) but
 * report in the same 422 shape as structural validation, so callers handle one error kind.
 * @module
 */
import type { ValidationError } from '../types.js';
import { QUESTION_TOKEN_BUDGET, REQUEST_TOKEN_BUDGET } from '../limits.js';
import { tooManyTokens } from './issues.js';

/**
 * Errors for a request whose token counts exceed the budgets: one at `["body"]` when the
 * state plus all questions exceed {@link REQUEST_TOKEN_BUDGET}, and one per question, at
 * `["body","questions",id]`, when the state plus that question exceed
 * {@link QUESTION_TOKEN_BUDGET}. A count equal to a limit is within it. Empty when both hold.
 */
export function tokenBudgetErrors(stateTokens: number, questionTokens: Record<string, number>): ValidationError[] {
  const errors: ValidationError[] = [];
  const ids = Object.keys(questionTokens);
  const counts = ids.map((id) => questionTokens[id] ?? 0);
  const questionsTotal = counts.reduce((sum, n) => sum + n, 0);
  const total = stateTokens + questionsTotal;
  if (total > REQUEST_TOKEN_BUDGET) {
    errors.push(
      tooManyTokens(
        ['body'],
        `Request has ${total} tokens (state ${stateTokens}, questions ${questionsTotal}), more than the limit of ${REQUEST_TOKEN_BUDGET} per request`,
        REQUEST_TOKEN_BUDGET,
        total,
      ),
    );
  }
  ids.forEach((id, i) => {
    const pair = stateTokens + counts[i]!;
    if (pair > QUESTION_TOKEN_BUDGET) {
      errors.push(
        tooManyTokens(
          ['body', 'questions', id],
          `State plus question has ${pair} tokens (state ${stateTokens}, question ${counts[i]}), more than the limit of ${QUESTION_TOKEN_BUDGET} per question`,
          QUESTION_TOKEN_BUDGET,
          pair,
        ),
      );
    }
  });
  return errors;
}
