/**
 * JSON-to-text rendering shared by the state, instructions and criteria.
 *
 * The encoder was trained on natural English text, not on JSON, so values are laid out the way
 * a person would write them in a note rather than serialised:
 * - objects become `name: value` lines, one per field, in the key order given;
 * - nested objects become dotted paths (`policy.type: auto`) rather than indentation, so that
 *   every line names its full context and still makes sense when the encoder's 128-token
 *   window cuts a long state into pieces;
 * - arrays of short scalars become comma lists (`coverage: liability, collision`);
 * - other arrays become `- item` lines, objects inside them YAML-like (`- role: user` then
 *   `  text: ...`);
 * - multi-line strings keep their lines, continuation lines indented under their label.
 *
 * Recursion is bounded by {@link MAX_RENDER_DEPTH} and guarded against cycles, so no input can
 * exhaust the stack or loop.
 * @module
 */
import { sanitizeLabel, sanitizeText } from './sanitize.js';

/**
 * Deepest container nesting rendered in full. Deliberately above the validation limit
 * (64, see `src/limits.ts`) so that validated input is never cut, while still keeping the
 * recursion far from the call-stack limit for unvalidated library callers.
 */
export const MAX_RENDER_DEPTH = 128;

/** Stands in for a value that is empty (`{}` or `[]`): a bare `name:` would read as missing. */
export const EMPTY = '(empty)';

/** Stands in for a value beyond {@link MAX_RENDER_DEPTH} or a reference back to an ancestor. */
export const ELIDED = '...';

const INDENT = '  ';
const BULLET = '- ';

/** Longest string, in UTF-16 units, that still counts as a list atom (see {@link isAtomList}). */
const ATOM_MAX_LENGTH = 40;
/** Most spaces a list atom may contain: a name of up to four words, not a sentence. */
const ATOM_MAX_SPACES = 3;

/** Mutable state of one rendering walk. */
export interface RenderContext {
  /** Containers on the current path, to detect cycles in values built in code (JSON has none). */
  readonly ancestors: Set<object>;
  /** When set, receives every label (top-level name and dotted path) that was rendered. */
  readonly labels?: Set<string>;
}

/** A fresh context for one walk. */
export function newContext(labels?: Set<string>): RenderContext {
  return labels === undefined ? { ancestors: new Set() } : { ancestors: new Set(), labels };
}

type Container = readonly unknown[] | { readonly [key: string]: unknown };

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/**
 * Text of a scalar. Numbers and booleans use their JSON spelling so that the rendering is
 * faithful to what the caller sent; values JSON cannot carry (undefined, functions, symbols)
 * render as `null`, as `JSON.stringify` would inside an array.
 */
export function scalarText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return sanitizeText(value);
    case 'number':
      return Object.is(value, -0) ? '0' : String(value);
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return 'null';
  }
}

/** Defined entries of an object in key order; undefined-valued keys are skipped as JSON does. */
function entriesOf(object: { readonly [key: string]: unknown }): [string, unknown][] {
  return Object.entries(object).filter(([, value]) => value !== undefined);
}

function isEmptyContainer(value: Container): boolean {
  return Array.isArray(value)
    ? value.length === 0
    : entriesOf(value as { readonly [key: string]: unknown }).length === 0;
}

/** Indents continuation lines, leaving blank lines blank (no trailing spaces). */
function indent(lines: string[]): string[] {
  return lines.map((line) => (line === '' ? line : INDENT + line));
}

/** Puts `head` before the first line of `lines` and aligns the rest under it. */
function hang(head: string, lines: string[]): string[] {
  const [first = '', ...rest] = lines;
  return [first === '' ? head.trimEnd() : head + first, ...indent(rest)];
}

/**
 * Whether an array reads naturally as a comma list: every item a scalar, and every string a
 * short name (no sentence, no comma or semicolon that would blur item boundaries, no line
 * break). Anything else is listed one item per line.
 */
export function isAtomList(items: readonly unknown[]): boolean {
  if (items.length === 0) return false;
  return items.every((item) => {
    if (isContainer(item)) return false;
    if (typeof item !== 'string') return true;
    const text = sanitizeText(item);
    if (text.length === 0 || text.length > ATOM_MAX_LENGTH) return false;
    if (/[,;\n\t]/.test(text)) return false;
    return text.split(' ').length - 1 <= ATOM_MAX_SPACES;
  });
}

function atomList(items: readonly unknown[]): string {
  return items.map(scalarText).join(', ');
}

/**
 * Runs `body` with `value` on the ancestor path, or returns the elided form when `value` is
 * already on it (a cycle) or the walk is too deep.
 */
function descend(
  value: Container,
  depth: number,
  context: RenderContext,
  body: () => string[],
  elided: () => string[],
): string[] {
  if (depth >= MAX_RENDER_DEPTH || context.ancestors.has(value)) return elided();
  context.ancestors.add(value);
  try {
    return body();
  } finally {
    context.ancestors.delete(value);
  }
}

/**
 * Lines of one object's fields, each labelled with `prefix` + its name (the dotted path).
 * @param depth Nesting depth of `object` itself.
 */
export function objectLines(
  object: { readonly [key: string]: unknown },
  prefix: string,
  depth: number,
  context: RenderContext,
): string[] {
  const lines: string[] = [];
  for (const [key, value] of entriesOf(object)) {
    lines.push(...fieldLines(prefix + sanitizeLabel(key), value, depth + 1, context));
  }
  return lines;
}

/**
 * Lines of one labelled field. Nested objects continue the dotted path; arrays and multi-line
 * strings hang under the label.
 * @param depth Nesting depth of `value`.
 */
export function fieldLines(
  label: string,
  value: unknown,
  depth: number,
  context: RenderContext,
): string[] {
  context.labels?.add(label);
  if (!isContainer(value)) return hang(`${label}: `, scalarText(value).split('\n'));
  if (isEmptyContainer(value)) return [`${label}: ${EMPTY}`];
  return descend(
    value,
    depth,
    context,
    () => {
      if (!Array.isArray(value)) {
        return objectLines(value as { readonly [key: string]: unknown }, `${label}.`, depth, context);
      }
      if (isAtomList(value)) return [`${label}: ${atomList(value)}`];
      return [`${label}:`, ...indent(bulletLines(value, depth, context))];
    },
    () => [`${label}: ${ELIDED}`],
  );
}

/**
 * `- item` lines of an array, one bullet per item.
 * @param depth Nesting depth of `items` itself.
 */
export function bulletLines(items: readonly unknown[], depth: number, context: RenderContext): string[] {
  const lines: string[] = [];
  for (const item of items) {
    lines.push(...hang(BULLET, itemLines(item, depth + 1, context)));
  }
  return lines;
}

/** Lines of one array item before its bullet is added. */
function itemLines(item: unknown, depth: number, context: RenderContext): string[] {
  if (!isContainer(item)) return scalarText(item).split('\n');
  if (isEmptyContainer(item)) return [EMPTY];
  return descend(
    item,
    depth,
    context,
    () => {
      if (!Array.isArray(item)) {
        return objectLines(item as { readonly [key: string]: unknown }, '', depth, context);
      }
      return isAtomList(item) ? [atomList(item)] : bulletLines(item, depth, context);
    },
    () => [ELIDED],
  );
}

/**
 * Renders free-standing content (a state, an array or object `instructions`, a criterion
 * description) as text: a string as is after sanitising, an object as labelled lines, an array
 * as one `- item` line per item (a top-level array is the caller's list of items, e.g. messages
 * or log lines, so it is never folded into a comma list). null renders as the empty string.
 */
export function renderContent(value: unknown, context: RenderContext = newContext()): string {
  if (value === null || value === undefined) return '';
  if (!isContainer(value)) return scalarText(value);
  return descend(
    value,
    0,
    context,
    () =>
      Array.isArray(value)
        ? bulletLines(value, 0, context)
        : objectLines(value as { readonly [key: string]: unknown }, '', 0, context),
    () => [ELIDED],
  ).join('\n');
}

/**
 * Renders `value` after a label, for criteria: `label: text` when it fits on one line, else
 * `label:` with the rendered content indented under it (a multi-line string keeps its first
 * line beside the label). An absent value leaves the label alone.
 */
export function labelledContent(label: string, value: unknown, context: RenderContext = newContext()): string {
  if (value === null || value === undefined) return label;
  if (!isContainer(value)) return hang(`${label}: `, scalarText(value).split('\n')).join('\n');
  if (isEmptyContainer(value)) return `${label}: ${EMPTY}`;
  if (Array.isArray(value) && isAtomList(value)) return `${label}: ${atomList(value)}`;
  return [`${label}:`, ...indent(renderContent(value, context).split('\n'))].join('\n');
}
