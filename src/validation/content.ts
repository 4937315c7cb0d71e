/**
 * Validation and copying of content values: the state, `instructions` and criteria. These are
 * arbitrary JSON, so this is the one place that descends into caller data of unbounded size
 * and shape; it does so iteratively, with a depth cap, cycle detection and memoisation.
 * @module
 */
import { MAX_NESTING_DEPTH } from '../limits.js';
import { arrayItems, heightOf, isContainer, isWellFormed, ownEntries, setOwn, type Container } from './json.js';
import { badContent, badState, badUnicode, cycle, notFinite, notJson, tooDeep, type Loc, type Sink } from './issues.js';

/**
 * Which top-level shapes a content position accepts: `state` (string, object, array),
 * `content` (the same, for score levels, where null is not allowed) or `nullable` content
 * (instructions, noul criteria, choice options).
 */
export type ContentKind = 'state' | 'content' | 'nullable';

/** A step of the iterative walk: visit a value, or finish a container after its children. */
type Frame =
  | { kind: 'enter'; value: unknown; loc: Loc; depth: number; put: (copy: unknown) => void }
  | { kind: 'exit'; node: Container; copy: Container; failuresAtEnter: number };

/**
 * Checks content values of one request and builds their copies. One instance per request so
 * that a sub-value shared between several positions (a rubric reused by two score questions,
 * say) is checked and copied once, keeping the work linear in the distinct values even for
 * inputs built with heavy sharing.
 */
export class ContentChecker {
  /** Containers finished without a problem, with their copies. */
  private readonly done = new Map<object, Container>();
  /**
   * Containers of the current content value finished with a problem; their errors were
   * reported where first reached. Per content value, so that a bad value shared by two
   * positions (say two `instructions`) is reported at both.
   */
  private readonly failed = new Set<object>();
  private readonly heights = new Map<object, number>();
  /** Errors pushed plus failed containers met again: grows whenever a subtree is unusable. */
  private failures = 0;

  constructor(private readonly errors: Sink) {}

  /**
   * Validates a value at a content position and returns its copy. The copy is only meaningful
   * when no error was reported; callers decide success by the error list as a whole.
   */
  check(value: unknown, loc: Loc, kind: ContentKind): unknown {
    if (value === null && kind === 'nullable') return null;
    if (typeof value === 'string' || isContainer(value)) return this.walk(value, loc);
    this.fail(kind === 'state' ? badState(loc, value) : badContent(loc, value));
    return undefined;
  }

  private fail(error: Sink[number]): void {
    this.errors.push(error);
    this.failures++;
  }

  /** Checks a scalar inside content; returns false when it is not JSON. */
  private scalar(value: unknown, loc: Loc): boolean {
    switch (typeof value) {
      case 'string':
        if (isWellFormed(value)) return true;
        this.fail(badUnicode(loc, value));
        return false;
      case 'number':
        if (Number.isFinite(value)) return true;
        this.fail(notFinite(loc, value));
        return false;
      case 'boolean':
        return true;
      default:
        if (value === null) return true;
        this.fail(notJson(loc, value));
        return false;
    }
  }

  /** Depth-first walk in document order; containers of the root count from depth 1. */
  private walk(root: unknown, rootLoc: Loc): unknown {
    let result: unknown;
    this.failed.clear();
    const onPath = new Set<object>();
    const stack: Frame[] = [{ kind: 'enter', value: root, loc: rootLoc, depth: 1, put: (c) => (result = c) }];
    while (stack.length > 0) {
      const frame = stack.pop()!;
      if (frame.kind === 'exit') {
        onPath.delete(frame.node);
        if (this.failures > frame.failuresAtEnter) this.failed.add(frame.node);
        else this.done.set(frame.node, frame.copy);
        continue;
      }
      const { value, loc, depth, put } = frame;
      if (!isContainer(value)) {
        if (this.scalar(value, loc)) put(value);
        continue;
      }
      if (onPath.has(value)) {
        this.fail(cycle(loc, value));
        continue;
      }
      const finished = this.done.get(value);
      if (finished !== undefined) {
        // Shared sub-value: its content is known good, only its depth here is new.
        if (depth + heightOf(value, this.heights) - 1 > MAX_NESTING_DEPTH) this.fail(tooDeep(loc, value));
        else put(finished);
        continue;
      }
      if (this.failed.has(value)) {
        this.failures++;
        continue;
      }
      if (depth > MAX_NESTING_DEPTH) {
        this.fail(tooDeep(loc, value));
        continue;
      }
      onPath.add(value);
      const copy: Container = Array.isArray(value) ? [] : {};
      put(copy);
      stack.push({ kind: 'exit', node: value, copy, failuresAtEnter: this.failures });
      const children = this.children(value, copy, loc, depth + 1);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
    return result;
  }

  /**
   * Enter frames for a container's children, writing into `copy`. Object keys and holes are
   * checked here, so their errors precede those of the children, in document order.
   */
  private children(value: Container, copy: Container, loc: Loc, depth: number): Frame[] {
    const frames: Frame[] = [];
    if (Array.isArray(value)) {
      const { items, sparse } = arrayItems(value);
      if (sparse) this.fail(notJson(loc, value));
      const target = copy as unknown[];
      for (const [i, item] of items) {
        frames.push({ kind: 'enter', value: item, loc: [...loc, i], depth, put: (c) => (target[i] = c) });
      }
      return frames;
    }
    const target = copy as Record<string, unknown>;
    for (const [key, item] of ownEntries(value)) {
      const itemLoc = [...loc, key];
      if (!isWellFormed(key)) this.fail(badUnicode(itemLoc, key));
      frames.push({ kind: 'enter', value: item, loc: itemLoc, depth, put: (c) => setOwn(target, key, c) });
    }
    return frames;
  }
}
