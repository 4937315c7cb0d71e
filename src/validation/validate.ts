/**
 * Validation of a whole request body: the three top-level fields, the question map, and the
 * assembly of a fresh copy that shares nothing with the caller's value.
 * @module
 */
import type { Questions, SystemOneRequest, ValidationError } from '../types.js';
import { ContentChecker } from './content.js';
import { REQUEST_FIELD_HINTS } from './hints.js';
import { badUnicode, extraForbidden, missing, notADict, notAnObject, notAString, tooShort, type Loc, type Sink } from './issues.js';
import { isPlainObject, isWellFormed, ownEntries, setOwn } from './json.js';
import { validateQuestion } from './question.js';

/** Outcome of {@link validateRequest}: the checked copy, or every problem found. */
export type ValidationResult =
  | {
      /** The request is valid. */
      ok: true;
      /** A fresh copy of the request, safe from prototype pollution, keys in their given order. */
      request: SystemOneRequest;
    }
  | {
      /** The request is invalid. */
      ok: false;
      /** Every problem found, in document order: the 422 body's `detail`. */
      errors: ValidationError[];
    };

const REQUIRED = ['state', 'model', 'questions'] as const;

/**
 * Checks a request body against SystemOneRequest and reports every problem at once, in
 * document order (a missing field is reported after the fields its object does hold, where
 * a reader notices the absence). Total: returns for any JavaScript value and runs no caller
 * code (getters read as absent; proxies are out of scope). On success `request` is a deep
 * copy made of plain data properties, so keys like `__proto__` stay ordinary keys and later
 * changes to the input cannot reach it. Whether `model` names a known model is not checked
 * here.
 */
export function validateRequest(body: unknown): ValidationResult {
  const loc: Loc = ['body'];
  if (!isPlainObject(body)) return { ok: false, errors: [notAnObject(loc, body)] };
  const errors: Sink = [];
  const content = new ContentChecker(errors);
  const copy: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, value] of ownEntries(body)) {
    // An own key holding undefined is treated as absent, as JSON.stringify would drop it.
    if (value === undefined) continue;
    const at = [...loc, key];
    switch (key) {
      case 'state':
        setOwn(copy, key, content.check(value, at, 'state'));
        break;
      case 'model':
        if (typeof value !== 'string') errors.push(notAString(at, value));
        else if (!isWellFormed(value)) errors.push(badUnicode(at, value));
        setOwn(copy, key, value);
        break;
      case 'questions':
        setOwn(copy, key, validateQuestions(value, at, errors, content));
        break;
      default:
        errors.push(extraForbidden(at, value, REQUEST_FIELD_HINTS.get(key)));
        continue;
    }
    seen.add(key);
  }
  for (const field of REQUIRED) if (!seen.has(field)) errors.push(missing([...loc, field], body));
  if (errors.length > 0) return { ok: false, errors };
  // Key order follows the type, not the input, so logs of accepted requests read alike.
  const request: SystemOneRequest = { state: copy.state, model: copy.model, questions: copy.questions } as SystemOneRequest;
  return { ok: true, request };
}

/** The question map: at least one entry, each a valid question. */
function validateQuestions(value: unknown, loc: Loc, errors: Sink, content: ContentChecker): Questions | undefined {
  if (!isPlainObject(value)) {
    errors.push(notADict(loc, value));
    return undefined;
  }
  const entries = ownEntries(value);
  if (entries.length === 0) errors.push(tooShort(loc, value, 'Dictionary', 1, 0));
  const copy: Record<string, unknown> = {};
  for (const [id, question] of entries) {
    const at = [...loc, id];
    if (!isWellFormed(id)) errors.push(badUnicode(at, id));
    setOwn(copy, id, validateQuestion(question, at, errors, content));
  }
  return copy as Questions;
}
