/**
 * Texts of the server's error messages that more than one module writes.
 * @module
 */

/** `s` cut to `n` characters with an ellipsis: client-sent text echoed in a message stays short. */
export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/**
 * The 400 message for an unknown model: the name sent, the names this server serves to the
 * key, and, because the usual cause is @typesafe-ai/sdk's default model (another vendor's
 * name), the client setting that changes it.
 */
export function unknownModelMessage(model: string, served: readonly string[]): string {
  const first = served[0];
  const hint = first === undefined ? '' : ` With @typesafe-ai/sdk, set TYPESAFE_DEFAULT_MODEL=${first} or pass model.`;
  return `Unknown model '${truncate(model, 200)}'. This server serves: ${served.join(', ') || 'no model for this key'}.${hint}`;
}
