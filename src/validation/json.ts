/**
 * Safe, total access to untrusted JavaScript values that should be JSON: reading own data
 * properties without running getters or touching prototypes, writing keys such as
 * `__proto__` as plain data, measuring nesting without recursion, and bounding what error
 * entries echo back.
 * @module
 */
import { MAX_NESTING_DEPTH } from '../limits.js';

/** An object or array: anything validation descends into. */
export type Container = Record<string, unknown> | unknown[];

/**
 * A JSON object: an object whose prototype is `Object.prototype` (of any realm) or null.
 * Class instances, dates, maps and boxed primitives are not, so they are never mistaken for
 * field bags that merely happen to have no own keys.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** An array or plain object. */
export function isContainer(value: unknown): value is Container {
  return Array.isArray(value) || isPlainObject(value);
}

/**
 * Own enumerable string-keyed entries, in property order. Accessor properties read as
 * `undefined` so that validating a value never runs caller code.
 */
export function ownEntries(obj: object): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const key of Object.keys(obj)) out.push([key, dataValue(obj, key)]);
  return out;
}

/**
 * The present elements of an array, read as data (accessors read as `undefined`), and whether
 * it has holes. Goes by own keys, so a sparse array with a huge `length` costs only what it
 * holds; JSON cannot express holes, so validation rejects sparse arrays.
 */
export function arrayItems(arr: unknown[]): { items: [number, unknown][]; sparse: boolean } {
  const keys = Object.keys(arr);
  const n = arr.length;
  const dense = keys.length >= n && (n === 0 || keys[n - 1] === String(n - 1));
  const items: [number, unknown][] = [];
  if (dense) {
    for (let i = 0; i < n; i++) items.push([i, dataValue(arr, String(i))]);
  } else {
    for (const key of keys) {
      const i = Number(key);
      if (Number.isInteger(i) && i >= 0 && i < n && String(i) === key) items.push([i, dataValue(arr, key)]);
    }
  }
  return { items, sparse: !dense };
}

function dataValue(obj: object, key: string): unknown {
  const desc = Object.getOwnPropertyDescriptor(obj, key);
  return desc !== undefined && 'value' in desc ? desc.value : undefined;
}

/**
 * Defines `key` as an ordinary own data property. Plain assignment would invoke the
 * `__proto__` setter of `Object.prototype` and re-parent the object instead.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string is valid Unicode text, i.e. holds no unpaired UTF-16 surrogate. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Container nesting height of `value`: 0 for a scalar, 1 for a flat array or object, and
 * `Infinity` when it reaches a cycle. Iterative, and memoised in `memo` so that shared
 * sub-values are measured once (a DAG with heavy sharing would otherwise cost exponential time).
 */
export function heightOf(value: unknown, memo: Map<object, number> = new Map()): number {
  if (!isContainer(value)) return 0;
  const known = memo.get(value);
  if (known !== undefined) return known;
  const IN_PROGRESS = -1;
  const stack: { node: Container; children: Container[]; next: number }[] = [];
  const push = (node: Container): void => {
    memo.set(node, IN_PROGRESS);
    const children: Container[] = [];
    const entries = Array.isArray(node) ? arrayItems(node).items : ownEntries(node);
    for (const [, child] of entries) if (isContainer(child)) children.push(child);
    stack.push({ node, children, next: 0 });
  };
  push(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length) {
      const child = top.children[top.next++]!;
      if (!memo.has(child)) push(child);
      continue;
    }
    let height = 1;
    for (const child of top.children) {
      const h = memo.get(child)!;
      height = Math.max(height, h === IN_PROGRESS ? Infinity : h + 1);
    }
    memo.set(top.node, height);
    stack.pop();
  }
  return memo.get(value)!;
}

/**
 * Deepest nesting an error entry echoes back. Leaves room for the request's own structure
 * (body, questions, question, criteria) around a content value at the accepted depth.
 */
export const ECHO_DEPTH = MAX_NESTING_DEPTH + 8;

/** Stands in for a container that an echoed input clips off. */
export const CLIPPED = '[nested too deep]';

/** Stands in for a container that contains itself, in an echoed input. */
export const CYCLIC = '[cyclic reference]';

/**
 * The `input` an error entry carries: the value itself, unless it nests deeper than
 * {@link ECHO_DEPTH} or is cyclic. Then a copy clipped at that depth with back-references
 * replaced, so that serialising a 422 body (JSON.stringify recurses) can never overflow the
 * stack or loop.
 */
export function echo(value: unknown, memo: Map<object, number> = new Map()): unknown {
  if (heightOf(value, memo) <= ECHO_DEPTH) return value;
  return clip(value, 1, memo, new Set());
}

/**
 * Depth-capped tree copy (recursion depth at most {@link ECHO_DEPTH}). Sub-values that fit
 * are kept as they are; only the paths leading too deep or around a cycle are copied.
 */
function clip(value: unknown, depth: number, memo: Map<object, number>, onPath: Set<object>): unknown {
  if (!isContainer(value)) return value;
  if (onPath.has(value)) return CYCLIC;
  if (depth + heightOf(value, memo) - 1 <= ECHO_DEPTH) return value;
  if (depth > ECHO_DEPTH) return CLIPPED;
  onPath.add(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    const arr: unknown[] = [];
    for (const [i, v] of arrayItems(value).items) arr[i] = clip(v, depth + 1, memo, onPath);
    copy = arr;
  } else {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of ownEntries(value)) setOwn(obj, k, clip(v, depth + 1, memo, onPath));
    copy = obj;
  }
  onPath.delete(value);
  return copy;
}
