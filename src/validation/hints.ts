/**
 * Hints attached to `extra_forbidden` errors for fields of the preview interface (SPEC.md,
 * Versioning), so that a client still sending the old shape learns what replaced each field.
 * Maps, not object literals: a lookup by a caller's key such as `constructor` must not find
 * inherited properties.
 * @module
 */

/** Preview-era top-level request fields. */
export const REQUEST_FIELD_HINTS: ReadonlyMap<string, string> = new Map([
  ['document', '`document` was renamed `state` in version 1'],
  ['prompts', '`prompts` was replaced by `questions` in version 1: a map from question id to question'],
]);

/** Preview-era question fields. */
export const QUESTION_FIELD_HINTS: ReadonlyMap<string, string> = new Map([
  ['options', '`options` was replaced by `criteria` in version 1: a map from option name to description'],
  ['levels', '`levels` was replaced by `criteria` in version 1: an array whose positions are the levels'],
  ['key', '`key` was removed in version 1: the question id is the key of the question in `questions`'],
]);
