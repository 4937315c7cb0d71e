/**
 * The 422 body over HTTP: SPEC.md's HTTPValidationError (`{detail: [{loc, msg, type, input,
 * ctx}]}`), bounded in size. A validation error echoes the `input` that failed, and a request
 * of 1 MiB could otherwise be echoed whole (a 949 KB reply to one bad field) or as a hundred
 * thousand entries. Here each echoed `input` is cut to a preview of at most
 * {@link MAX_ECHO_CHARS} characters (strings shortened, arrays and objects to their first
 * items, nesting to a few levels), with `ctx.input_truncated: true` saying so; the body holds at
 * most {@link MAX_DETAIL_ENTRIES} entries, and the header `x-validation-errors` gives the full
 * count. The library's `RequestValidationError.detail` is not cut: only the wire copy is.
 * @module
 */
import type { ValidationError } from '../types.js';

/** Longest string echoed in an `input`, in characters. */
export const MAX_ECHO_CHARS = 256;
/** Items of an array, or keys of an object, echoed in an `input`. */
const MAX_ECHO_ITEMS = 16;
/** Levels of nesting echoed in an `input`. */
const MAX_ECHO_DEPTH = 3;
/** Entries a 422 body carries at most. */
export const MAX_DETAIL_ENTRIES = 1_000;

/** A preview of `value` and whether anything was left out. */
function preview(value: unknown, depth: number): { value: unknown; cut: boolean } {
  if (typeof value === 'string') {
    return value.length > MAX_ECHO_CHARS ? { value: `${value.slice(0, MAX_ECHO_CHARS)}…`, cut: true } : { value, cut: false };
  }
  if (value === null || typeof value !== 'object') return { value, cut: false };
  if (depth >= MAX_ECHO_DEPTH) return { value: Array.isArray(value) ? [] : {}, cut: true };
  let cut = false;
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ECHO_ITEMS).map((item) => {
      const p = preview(item, depth + 1);
      cut ||= p.cut;
      return p.value;
    });
    return { value: items, cut: cut || value.length > MAX_ECHO_ITEMS };
  }
  const keys = Object.keys(value);
  const out: Record<string, unknown> = {};
  for (const key of keys.slice(0, MAX_ECHO_ITEMS)) {
    const p = preview((value as Record<string, unknown>)[key], depth + 1);
    cut ||= p.cut;
    Object.defineProperty(out, key.length > MAX_ECHO_CHARS ? `${key.slice(0, MAX_ECHO_CHARS)}…` : key, { value: p.value, enumerable: true, writable: true, configurable: true });
    cut ||= key.length > MAX_ECHO_CHARS;
  }
  return { value: out, cut: cut || keys.length > MAX_ECHO_ITEMS };
}

/** One entry with its `input` cut to a preview (and marked) when it is large. */
export function boundedEntry(entry: ValidationError): ValidationError {
  let out = entry;
  // A question id can be as long as the body: its place in `loc` is shortened too.
  if (entry.loc.some((part) => typeof part === 'string' && part.length > MAX_ECHO_CHARS)) {
    const loc = entry.loc.map((part) => (typeof part === 'string' && part.length > MAX_ECHO_CHARS ? `${part.slice(0, MAX_ECHO_CHARS)}…` : part));
    out = { ...out, loc, ctx: { ...out.ctx, loc_truncated: true } };
  }
  if (!('input' in entry)) return out;
  const p = preview(entry.input, 0);
  if (!p.cut) return out;
  return { ...out, input: p.value, ctx: { ...out.ctx, input_truncated: true } };
}

/** Serialises a bounded 422 body; an entry that still cannot be serialised loses `input`. */
export function validationBody(detail: readonly ValidationError[]): string {
  const parts = detail.slice(0, MAX_DETAIL_ENTRIES).map((raw) => {
    const entry = boundedEntry(raw);
    try {
      return JSON.stringify(entry);
    } catch {
      const { input: _input, ctx: _ctx, ...rest } = entry;
      return JSON.stringify(rest);
    }
  });
  return `{"detail":[${parts.join(',')}]}`;
}
