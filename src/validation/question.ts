/**
 * Validation of one question: the `type` tag, then the fields of the variant it selects.
 * Locations of variant fields carry the tag (`["body","questions",id,"choice","criteria"]`),
 * as pydantic reports fields of a discriminated union member.
 * @module
 */
import type { Question, QuestionType } from '../types.js';
import { MAX_CHOICE_OPTIONS, MAX_SCORE_LEVELS } from '../limits.js';
import type { ContentChecker } from './content.js';
import { QUESTION_FIELD_HINTS } from './hints.js';
import {
  badUnicode,
  extraForbidden,
  missing,
  notADict,
  notAList,
  notAnObject,
  notJson,
  tagInvalid,
  tagNotFound,
  tooLong,
  tooShort,
  type Loc,
  type Sink,
} from './issues.js';
import { arrayItems, isPlainObject, isWellFormed, ownEntries, setOwn } from './json.js';

const TAGS: readonly QuestionType[] = ['noul', 'choice', 'score'];

function isTag(value: unknown): value is QuestionType {
  return typeof value === 'string' && (TAGS as readonly string[]).includes(value);
}

/**
 * The tag as the error message shows it. Never calls the value's own `toString` (which may be
 * missing, as on null-prototype objects, or be caller code).
 */
function describeTag(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return '[...]';
  if (typeof value === 'object') return '{...}';
  return typeof value;
}

/** Validates one question at `loc` (`["body","questions",id]`) and returns its copy. */
export function validateQuestion(input: unknown, loc: Loc, errors: Sink, content: ContentChecker): Question | undefined {
  if (!isPlainObject(input)) {
    errors.push(notAnObject(loc, input));
    return undefined;
  }
  // An own key holding undefined is treated as absent, as JSON.stringify would drop it.
  const fields = ownEntries(input).filter(([, v]) => v !== undefined);
  const tagField = fields.find(([k]) => k === 'type');
  if (tagField === undefined) {
    errors.push(tagNotFound(loc, input));
    return undefined;
  }
  const tag = tagField[1];
  if (!isTag(tag)) {
    errors.push(tagInvalid(loc, input, describeTag(tag)));
    return undefined;
  }
  const at = [...loc, tag];
  const copy: Record<string, unknown> = {};
  let hasCriteria = false;
  for (const [key, value] of fields) {
    switch (key) {
      case 'type':
        setOwn(copy, key, tag);
        break;
      case 'instructions':
        setOwn(copy, key, content.check(value, [...at, key], 'nullable'));
        break;
      case 'criteria':
        hasCriteria = true;
        setOwn(copy, key, criteria(tag, value, [...at, key], errors, content));
        break;
      default:
        errors.push(extraForbidden([...at, key], value, QUESTION_FIELD_HINTS.get(key)));
    }
  }
  if (!hasCriteria && tag !== 'noul') errors.push(missing([...at, 'criteria'], input));
  return copy as unknown as Question;
}

function criteria(tag: QuestionType, value: unknown, loc: Loc, errors: Sink, content: ContentChecker): unknown {
  switch (tag) {
    case 'noul':
      return noulCriteria(value, loc, errors, content);
    case 'choice':
      return choiceCriteria(value, loc, errors, content);
    case 'score':
      return scoreCriteria(value, loc, errors, content);
  }
}

/** Null, or an object with optional `true` and `false` descriptions. */
function noulCriteria(value: unknown, loc: Loc, errors: Sink, content: ContentChecker): unknown {
  if (value === null) return null;
  if (!isPlainObject(value)) {
    errors.push(notAnObject(loc, value));
    return undefined;
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of ownEntries(value)) {
    if (item === undefined) continue;
    if (key === 'true' || key === 'false') setOwn(copy, key, content.check(item, [...loc, key], 'nullable'));
    else errors.push(extraForbidden([...loc, key], item));
  }
  return copy;
}

/** A map from option name to description, 1 to {@link MAX_CHOICE_OPTIONS} entries. */
function choiceCriteria(value: unknown, loc: Loc, errors: Sink, content: ContentChecker): unknown {
  if (!isPlainObject(value)) {
    errors.push(notADict(loc, value));
    return undefined;
  }
  const options = ownEntries(value);
  if (options.length < 1) errors.push(tooShort(loc, value, 'Dictionary', 1, options.length));
  if (options.length > MAX_CHOICE_OPTIONS) errors.push(tooLong(loc, value, 'Dictionary', MAX_CHOICE_OPTIONS, options.length));
  const copy: Record<string, unknown> = {};
  for (const [name, description] of options) {
    const at = [...loc, name];
    if (!isWellFormed(name)) errors.push(badUnicode(at, name));
    if (description === undefined) errors.push(notJson(at, description));
    else setOwn(copy, name, content.check(description, at, 'nullable'));
  }
  return copy;
}

/** An array of 1 to {@link MAX_SCORE_LEVELS} level descriptions; null levels are not allowed. */
function scoreCriteria(value: unknown, loc: Loc, errors: Sink, content: ContentChecker): unknown {
  if (!Array.isArray(value)) {
    errors.push(notAList(loc, value));
    return undefined;
  }
  const { items, sparse } = arrayItems(value);
  if (value.length < 1) errors.push(tooShort(loc, value, 'List', 1, value.length));
  if (value.length > MAX_SCORE_LEVELS) errors.push(tooLong(loc, value, 'List', MAX_SCORE_LEVELS, value.length));
  if (sparse) errors.push(notJson(loc, value));
  const copy: unknown[] = [];
  for (const [i, level] of items) copy[i] = content.check(level, [...loc, i], 'content');
  return copy;
}
