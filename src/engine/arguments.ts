/**
 * `evaluate` takes either one request body or (state, questions, model?, options?). This module
 * tells the two apart without guessing from the body's contents.
 * @module
 */
import type { EvaluateOptions } from './contract.js';

/**
 * An options object: a non-empty object whose keys are `signal` (an AbortSignal) and `onWork`
 * (a function) only. No questions map looks like that: a question is an object.
 */
function isEvaluateOptions(value: unknown): value is EvaluateOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const v = value as { signal?: unknown; onWork?: unknown };
  return (
    keys.length > 0 &&
    keys.every((k) => k === 'signal' || k === 'onWork') &&
    (!('signal' in v) || v.signal instanceof AbortSignal) &&
    (!('onWork' in v) || typeof v.onWork === 'function')
  );
}

/**
 * `(request)` and `(request, options)` are the one-body form; anything else with two or more
 * arguments is the positional form, where an absent model means the engine's default.
 */
export function splitEvaluateArguments(
  args: readonly unknown[],
  defaultModel: string,
): { request: unknown; options: EvaluateOptions } {
  const [first, second, third, fourth] = args;
  const oneBody = args.length === 1 || (args.length === 2 && (second === undefined || isEvaluateOptions(second)));
  if (oneBody) return { request: first, options: (second as EvaluateOptions | undefined) ?? {} };
  return {
    request: { state: first, questions: second, model: third === undefined ? defaultModel : third },
    options: isEvaluateOptions(fourth) ? fourth : {},
  };
}
