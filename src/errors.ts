/**
 * Errors the engine throws. Each carries what a caller (or the HTTP adapter) needs to answer
 * without parsing messages.
 * @module
 */
import type { HTTPValidationError, ValidationError } from './types.js';

/** Base class of every error evalmodel throws on purpose. */
export class EvalModelError extends Error {
  override name = 'EvalModelError';
}

/**
 * The request failed validation. `detail` is the specification's 422 body: every problem at
 * once, each with its `loc`, `msg` and `type`.
 */
export class RequestValidationError extends EvalModelError {
  override name = 'RequestValidationError';
  /** The 422 body's entries: every problem of the request. */
  readonly detail: ValidationError[];

  constructor(detail: ValidationError[]) {
    const first = detail[0];
    const where = first ? ` (${first.loc.join('.')}: ${first.msg}${detail.length > 1 ? `, and ${detail.length - 1} more` : ''})` : '';
    super(`Request failed validation${where}`);
    this.detail = detail;
  }

  /** The HTTPValidationError body of a 422 response. */
  toJSON(): HTTPValidationError {
    return { detail: this.detail };
  }
}

/** The `model` names neither an alias nor a versioned id this engine has weights for. */
export class UnknownModelError extends EvalModelError {
  override name = 'UnknownModelError';
  constructor(
    /** The name that was sent. */
    readonly model: string,
    /** The names the model listing offers (versioned ids are accepted too, listed or not). */
    readonly available: readonly string[],
  ) {
    super(`Unknown model '${model}'. Available: ${available.join(', ')}.`);
  }
}

/** The engine was used after `close()`. */
export class EngineClosedError extends EvalModelError {
  override name = 'EngineClosedError';
  constructor() {
    super('The engine has been closed');
  }
}
