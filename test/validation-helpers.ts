/**
 * Helpers of the validation tests: a valid base request and views of the errors it yields.
 * @module
 */
import { expect } from 'vitest';
import { validateRequest } from '../src/validation/index.js';
import type { ValidationError } from '../src/types.js';

export const Q = { q1: { type: 'noul', instructions: 'Is it raining?' } };
/** A valid request with some fields replaced. */
export const base = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ state: 'text', model: 'evalmodel-latest', questions: Q, ...over });

export function errorsOf(body: unknown): ValidationError[] {
  const r = validateRequest(body);
  return r.ok ? [] : r.errors;
}
/** The one error of a body (fails the test when there are more or none). */
export function only(body: unknown): ValidationError {
  const errors = errorsOf(body);
  expect(errors).toHaveLength(1);
  return errors[0]!;
}
export const summary = (body: unknown): [ValidationError['loc'], string][] => errorsOf(body).map((e) => [e.loc, e.type]);
/** `leaf` wrapped in `levels` arrays. */
export function nest(levels: number, leaf: unknown = 'x'): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}
