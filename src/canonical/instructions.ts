/**
 * Rendering of a question's `instructions`, including the structured form: an object whose
 * field names the caller picks (none is reserved), one field holding the question text and
 * the others data that the text refers to by name in backticks.
 * @module
 */
import { fieldLines, newContext, renderContent } from './render-value.js';
import { sanitizeLabel, sanitizeText } from './sanitize.js';

/** A backticked name: no backtick or line break inside, at least one character. */
const REFERENCE = /`([^`\n]+)`/g;

/**
 * Names that conventionally hold the question text, compared after lowercasing and dropping
 * non-letters (so `Question`, `question_text` and `user-prompt` are recognised by the second
 * rule below).
 */
const QUESTION_NAMES = ['question', 'instruction', 'instructions', 'prompt', 'text', 'task', 'ask', 'query'];
const QUESTION_NAME_PARTS = ['question', 'instruction', 'prompt'];

/** Instructions as rendered, with what is needed to resolve references elsewhere. */
export interface RenderedInstructions {
  /** Question text first, then the labelled data fields, references resolved. */
  readonly text: string;
  /** Labels of the data fields (top-level names and dotted paths) that references may name. */
  readonly labels: ReadonlySet<string>;
}

function referencesOf(text: string): string[] {
  return Array.from(text.matchAll(REFERENCE), (match) => match[1] as string);
}

function normalisedName(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, '');
}

/**
 * Picks the field that holds the question text, or undefined when no field is a string.
 *
 * Rules, first match wins:
 * 1. a string field that references another field by backticks (`name` or `name.path`); when
 *    several do, one that no other field references (the root of the references, since data
 *    may cite other data), then one with a question-like name, then the first;
 * 2. a string field named like the question (question, instruction(s), prompt, text, task,
 *    ask, query; then any name containing question, instruction or prompt);
 * 3. the longest string ending with "?";
 * 4. the first string field.
 *
 * Key order breaks every remaining tie, so the choice is deterministic.
 */
export function findQuestionField(instructions: { readonly [key: string]: unknown }): string | undefined {
  const strings = Object.entries(instructions).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  if (strings.length === 0) return undefined;
  const keys = Object.keys(instructions);
  const citedKeys = (own: string, text: string): string[] =>
    keys.filter(
      (key) => key !== own && referencesOf(text).some((ref) => ref === key || ref.startsWith(`${key}.`)),
    );

  const citing = strings.filter(([key, text]) => citedKeys(key, text).length > 0);
  if (citing.length > 0) {
    const cited = new Set(citing.flatMap(([key, text]) => citedKeys(key, text)));
    const roots = citing.filter(([key]) => !cited.has(key));
    const pool = roots.length > 0 ? roots : citing;
    const named = pool.find(([key]) => isQuestionName(key));
    return (named ?? pool[0])?.[0];
  }

  const exact = strings.find(([key]) => QUESTION_NAMES.includes(normalisedName(key)));
  if (exact !== undefined) return exact[0];
  const partial = strings.find(([key]) => isQuestionName(key));
  if (partial !== undefined) return partial[0];

  let longest: [string, string] | undefined;
  for (const entry of strings) {
    const text = entry[1].trimEnd();
    if (text.endsWith('?') && (longest === undefined || text.length > longest[1].trimEnd().length)) {
      longest = entry;
    }
  }
  return (longest ?? strings[0])?.[0];
}

function isQuestionName(key: string): boolean {
  const name = normalisedName(key);
  return QUESTION_NAMES.includes(name) || QUESTION_NAME_PARTS.some((part) => name.includes(part));
}

/**
 * Drops the backticks around references that name a rendered label, so that the question reads
 * as plain English and the word matches the `name:` label of the data it points at. References
 * to names that were not rendered are kept verbatim, backticks included: the caller may mean
 * something other than a field.
 */
export function resolveReferences(text: string, labels: ReadonlySet<string>): string {
  if (labels.size === 0) return text;
  return text.replace(REFERENCE, (match, name: string) => (labels.has(name) ? name : match));
}

/**
 * Renders `instructions`: a string as is (sanitised), an array or a plain object without a
 * question field as content, a structured object as its question text followed by one
 * labelled line (or block) per data field, and null or absent as the empty string.
 */
export function renderInstructions(instructions: unknown): RenderedInstructions {
  if (instructions === null || instructions === undefined) return { text: '', labels: new Set() };
  if (typeof instructions !== 'object' || Array.isArray(instructions)) {
    return { text: renderContent(instructions), labels: new Set() };
  }
  const object = instructions as { readonly [key: string]: unknown };
  const questionKey = findQuestionField(object);
  const labels = new Set<string>();
  const context = newContext(labels);
  const lines: string[] = [];
  if (questionKey !== undefined) lines.push(sanitizeText(object[questionKey] as string));
  context.ancestors.add(object);
  for (const [key, value] of Object.entries(object)) {
    if (key === questionKey || value === undefined) continue;
    lines.push(...fieldLines(sanitizeLabel(key), value, 1, context));
  }
  return { text: resolveReferences(lines.join('\n'), labels), labels };
}

