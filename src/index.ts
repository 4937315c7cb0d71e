/**
 * evalmodel: an embeddable question-evaluation engine. Ask typed questions (noul, choice,
 * score) about a state and get calibrated answers from a real transformer encoder, in-process.
 *
 * @example
 * import { evaluate } from 'evalmodel';
 * const res = await evaluate('The parcel arrived broken and late.', {
 *   unhappy: { type: 'noul', instructions: 'Is the customer unhappy?' },
 * });
 * console.log(res.answers.unhappy);
 * @module
 */
import { createEngine } from './engine/engine.js';
import type { Engine, EngineConfig, EvaluateOptions } from './engine/contract.js';
import type { ModelMetadataList, Questions, State, SystemOneResponse } from './types.js';

export * from './types.js';
export * from './errors.js';
export type { BackendName, TfjsBackendName, CacheStats, Engine, EngineConfig, EngineStats, EvaluateOptions } from './engine/contract.js';
export { createEngine, DEFAULT_CACHE_BYTES } from './engine/engine.js';
export { createEnginePool, type EnginePoolConfig } from './engine/pool.js';
export { validateRequest, tokenBudgetErrors, type ValidationResult } from './validation/index.js';
export { renderQuestion, renderState, type RenderedQuestion } from './canonical/index.js';
export { choiceConfidence, scoreConfidence } from './heads/index.js';
export { exactAnswer, explainExact, EXACT_PROBABILITY, type ExactExplanation, type ExactOutcome, type Query } from './exact/index.js';
export * from './limits.js';

let shared: Promise<Engine> | null = null;

/** The process-wide engine behind `evaluate` and `listModels`, created on first use. */
export function defaultEngine(config?: EngineConfig): Promise<Engine> {
  shared ??= createEngine(config).catch((error: unknown) => {
    shared = null;
    throw error;
  });
  return shared;
}

/**
 * Evaluates questions about a state on the shared default engine.
 * Call as `evaluate(request)` with a SystemOneRequest body, or as
 * `evaluate(state, questions, model?, options?)`.
 * Throws `RequestValidationError` (with the 422 `detail`) or `UnknownModelError`.
 */
export async function evaluate(request: unknown, options?: EvaluateOptions): Promise<SystemOneResponse>;
export async function evaluate(state: State, questions: Questions, model?: string, options?: EvaluateOptions): Promise<SystemOneResponse>;
export async function evaluate(...args: unknown[]): Promise<SystemOneResponse> {
  const engine = await defaultEngine();
  return (engine.evaluate as (...a: unknown[]) => Promise<SystemOneResponse>)(...args);
}

/** The model listing (the aliases) of the shared default engine. */
export async function listModels(): Promise<ModelMetadataList> {
  return (await defaultEngine()).listModels();
}
