/**
 * Rendering of the state, the content every question is evaluated against.
 * @module
 */
import type { State } from '../types.js';
import { renderContent } from './render-value.js';

/**
 * Renders the state as text for the encoder.
 *
 * - A string is used as is, after sanitising (see `sanitizeText`).
 * - An object becomes `name: value` lines in the caller's key order, nested objects as dotted
 *   paths (`incident.date: 2024-09-02`), arrays of short names as comma lists and other arrays
 *   as indented `- item` lines.
 * - An array becomes one `- item` line per item (messages, log entries, ...), object items
 *   YAML-like with their first field on the bullet line.
 *
 * Labelled lines rather than JSON because the encoder was trained on natural text: braces and
 * quotes cost tokens of the 128-token window and carry no meaning the model learnt, while
 * `name: value` is how such facts appear in ordinary prose, forms and notes.
 *
 * Deterministic and total: equal inputs give equal text, and no input throws.
 */
export function renderState(state: State): string {
  return renderContent(state);
}
