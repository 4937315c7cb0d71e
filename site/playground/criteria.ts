/**
 * The playground's criteria field, parsed into a question's `criteria`. Pure functions, so that
 * test/playground-criteria.test.ts checks them in Node.
 *
 * The field holds one entry per line when it has several lines, else comma-separated entries
 * (so a description with commas goes on its own line). A choice entry `name: description` gives
 * the option a description; a noul entry `true: ...` or `false: ...` says what counts as yes or
 * no. Score entries are the levels, lowest first, taken whole.
 */
import type { NoulCriteria } from '../../src/types.js';

/** The field's entries, trimmed, blanks dropped. */
export function entries(text: string): string[] {
  const parts = /[\r\n]/.test(text.trim()) ? text.split(/\r?\n/) : text.split(',');
  return parts.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** `name: description` -> [name, description]; an entry without ': ' is a name alone (null). */
export function named(entry: string): [string, string | null] {
  const at = entry.indexOf(': ');
  if (at <= 0) return [entry.replace(/:$/, '').trim(), null];
  const description = entry.slice(at + 2).trim();
  return [entry.slice(0, at).trim(), description === '' ? null : description];
}

/** A choice question's criteria: option name -> description or null. */
export function choiceCriteria(text: string): Record<string, string | null> {
  return Object.fromEntries(entries(text).map(named));
}

/**
 * A noul question's criteria, or undefined when the field is empty. Names other than `true`
 * and `false` are passed on as written, so that the engine's validation reports them (422).
 */
export function noulCriteria(text: string): NoulCriteria | undefined {
  const list = entries(text);
  if (list.length === 0) return undefined;
  return Object.fromEntries(list.map(named)) as NoulCriteria;
}

/** A score question's levels, lowest first. */
export function scoreCriteria(text: string): string[] {
  return entries(text);
}
