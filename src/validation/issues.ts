/**
 * Builders for the pydantic-v2-style error entries this library reports. Messages and codes
 * live here only, so every stage words the same failure the same way.
 * @module
 */
import type { ValidationError } from '../types.js';
import { MAX_NESTING_DEPTH } from '../limits.js';
import { echo } from './json.js';

/** Path to a value: `"body"`, then field names and array indices. */
export type Loc = (string | number)[];

/** Where errors of one validation run are collected, in the order they are found. */
export type Sink = ValidationError[];

/** Ending of every "expected a string, object or array" message. */
const CONTENT_MSG = 'Input should be a string, an object or an array';

function entry(loc: Loc, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): ValidationError {
  const error: ValidationError = { loc: [...loc], msg, type, input: echo(input) };
  if (ctx !== undefined) error.ctx = ctx;
  return error;
}

/** A value that must be an object with named fields (a model, in pydantic's terms) is not. */
export function notAnObject(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'model_attributes_type', 'Input should be a valid dictionary or object to extract fields from', input);
}

/** A value that must be a map (question ids, choice options) is not. */
export function notADict(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'dict_type', 'Input should be a valid dictionary', input);
}

/** A value that must be an array (score levels) is not. */
export function notAList(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'list_type', 'Input should be a valid list', input);
}

/** A value that must be a string is not. */
export function notAString(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'string_type', 'Input should be a valid string', input);
}

/** `state` is not a string, object or array. */
export function badState(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'state_type', CONTENT_MSG, input);
}

/** A Content value (instructions, criterion) is not a string, object or array. */
export function badContent(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'content_type', CONTENT_MSG, input);
}

/** A required field is absent; `input` is the enclosing object, as pydantic reports it. */
export function missing(loc: Loc, enclosing: unknown): ValidationError {
  return entry(loc, 'missing', 'Field required', enclosing);
}

/** A field the schema does not define; `hint` names its version-1 replacement, if any. */
export function extraForbidden(loc: Loc, input: unknown, hint?: string): ValidationError {
  return entry(loc, 'extra_forbidden', 'Extra inputs are not permitted', input, hint === undefined ? undefined : { hint });
}

/** A map or list has fewer items than its minimum. */
export function tooShort(loc: Loc, input: unknown, kind: 'Dictionary' | 'List', min: number, actual: number): ValidationError {
  const items = min === 1 ? 'item' : 'items';
  return entry(loc, 'too_short', `${kind} should have at least ${min} ${items} after validation, not ${actual}`, input, {
    field_type: kind,
    min_length: min,
    actual_length: actual,
  });
}

/** A map or list has more items than its maximum. */
export function tooLong(loc: Loc, input: unknown, kind: 'Dictionary' | 'List', max: number, actual: number): ValidationError {
  const items = max === 1 ? 'item' : 'items';
  return entry(loc, 'too_long', `${kind} should have at most ${max} ${items} after validation, not ${actual}`, input, {
    field_type: kind,
    max_length: max,
    actual_length: actual,
  });
}

/** A question has no `type` to pick its variant by. */
export function tagNotFound(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'union_tag_not_found', "Unable to extract tag using discriminator 'type'", input, {
    discriminator: "'type'",
  });
}

/** The tags a question's `type` may take, formatted as pydantic lists them. */
export const EXPECTED_TAGS = "'noul', 'choice', 'score'";

/** A question's `type` names no variant. */
export function tagInvalid(loc: Loc, input: unknown, tag: string): ValidationError {
  return entry(
    loc,
    'union_tag_invalid',
    `Input tag '${tag}' found using 'type' does not match any of the expected tags: ${EXPECTED_TAGS}`,
    input,
    { discriminator: "'type'", tag, expected_tags: EXPECTED_TAGS },
  );
}

/** A container sits deeper than {@link MAX_NESTING_DEPTH} inside one content value. */
export function tooDeep(loc: Loc, input: unknown): ValidationError {
  return entry(
    loc,
    'too_deep',
    `Input nests arrays and objects more than ${MAX_NESTING_DEPTH} levels deep`,
    input,
    { max_depth: MAX_NESTING_DEPTH },
  );
}

/** A container contains itself; JSON cannot express that. */
export function cycle(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'recursion_loop', 'Recursion error - cyclic reference detected', input);
}

/** A string (value or key) holds a lone UTF-16 surrogate, so it is not valid Unicode text. */
export function badUnicode(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'string_unicode', 'Input should be a valid string, unable to parse raw data as a unicode string', input);
}

/** NaN or an infinity, which JSON cannot carry. */
export function notFinite(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'finite_number', 'Input should be a finite number', input);
}

/** Anything else JSON cannot carry (undefined, functions, symbols, bigints, class instances). */
export function notJson(loc: Loc, input: unknown): ValidationError {
  return entry(loc, 'json_type', 'Input should be a valid JSON value', input);
}

/** A token budget (whole request or one question) is exceeded; `input` is the count. */
export function tooManyTokens(loc: Loc, msg: string, limit: number, actual: number): ValidationError {
  return { loc: [...loc], msg, type: 'too_many_tokens', input: actual, ctx: { limit, actual } };
}
