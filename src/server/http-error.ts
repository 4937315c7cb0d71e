/**
 * Errors the HTTP adapter answers with, and the JSON bodies it sends for them.
 *
 * SPEC.md fixes only the 422 body (`{detail: [...]}`); the body of every other error is ours.
 * We send `{"error": {"type", "code", "message", "request_id", ...}}`: `error.message` is what
 * the official client (`@typesafe-ai/sdk`) renders into its error messages, `code` is a stable
 * machine-readable reason, and `request_id` repeats the request-id header for support tickets.
 * @module
 */

/** Coarse error families, one per status class a client branches on. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_timeout_error'
  | 'timeout_error'
  | 'request_too_large_error'
  | 'unsupported_media_type_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'service_unavailable_error'
  | 'overloaded_error';

/** The non-422 error body. */
export interface ErrorBody {
  error: {
    type: ErrorType;
    /** Stable, machine-readable reason, e.g. `missing_api_key`, `invalid_json`. */
    code: string;
    /** Human-readable explanation. Never contains the API key or the request's state. */
    message: string;
    /** The request id also sent in the request-id headers. */
    request_id: string;
    /** Extra, code-specific fields (e.g. `model`, `limit`). */
    [extra: string]: unknown;
  };
}

/** An error with an HTTP status, raised inside the adapter and turned into a response. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    /** Extra body fields. */
    readonly extra: Record<string, unknown> = {},
    /** Extra response headers (e.g. `retry-after`). */
    readonly headers: Record<string, string> = {},
    /** Close the connection after answering (the request body was not read to its end). */
    readonly closeConnection = false,
  ) {
    super(message);
  }

  body(requestId: string): ErrorBody {
    return { error: { type: this.type, code: this.code, message: this.message, request_id: requestId, ...this.extra } };
  }
}

/** `retry-after` (whole seconds, at least 1) and `retry-after-ms` for a delay. */
export function retryHeaders(delayMs: number): Record<string, string> {
  const ms = Math.max(1, Math.ceil(delayMs));
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))), 'retry-after-ms': String(ms) };
}

/** The client went away before we could answer; nothing is sent. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
  constructor() {
    super('The client closed the connection');
  }
}
