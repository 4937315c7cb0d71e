/**
 * Which worker of the pool a request goes to: requests about the same state (and model) hash to
 * the same worker, so its cached encoding is found again.
 * @module
 */

/** States whose worker the pool remembers. */
export const ROUTES = 4096;

/** FNV-1a over a string: a cheap, stable routing hash. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The model and the state of a request as one string (empty when it has neither). */
export function routingKey(request: unknown): string {
  if (request === null || typeof request !== 'object') return '';
  const { state, model } = request as { state?: unknown; model?: unknown };
  try {
    return `${String(model)}\u0000${typeof state === 'string' ? state : JSON.stringify(state)}`;
  } catch {
    return '';
  }
}
