/**
 * Request validation, the first stage of the pipeline: structural checks of a request body
 * (pydantic-v2-style errors, every problem at once) and, once tokens are counted, the token
 * budgets.
 * @module
 */
export { validateRequest, type ValidationResult } from './validate.js';
export { tokenBudgetErrors } from './budget.js';
export { EXPECTED_TAGS, type Loc } from './issues.js';
