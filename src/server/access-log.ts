/**
 * The structured access log: one JSON line per request. It names the request id, method,
 * path (without the query string), status, latency and input tokens; never the state, the
 * questions, the Authorization header or the key.
 * @module
 */

/** One access-log record. */
export interface AccessRecord {
  time: string;
  level: 'info' | 'warn' | 'error';
  msg: 'request';
  id: string;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  input_tokens: number | null;
  bytes_in: number;
  /** The error code sent, for error statuses. */
  code?: string;
  /** Set when the client went away before the response was complete. */
  aborted?: true;
  /** Internal error class and message for 500s (never sent to the client). */
  error?: string;
}

/** Receives whole log lines (each one JSON object, no trailing newline). */
export type LogSink = (line: string) => void;

/** Writes lines to stderr. */
export const stderrSink: LogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

/** Drops every line. */
export const silentSink: LogSink = () => undefined;

/** Serialises a record; never throws. */
export function logLine(sink: LogSink, record: Record<string, unknown>): void {
  try {
    sink(JSON.stringify(record));
  } catch {
    // A failing log sink must never fail a request.
  }
}
