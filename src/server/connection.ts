/**
 * Connection-level handling under the router: draining a body we already answered, and JSON
 * answers to requests too malformed to reach the router (bad HTTP, header overflow or timeout).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { logLine, type LogSink } from './access-log.js';
import { HttpError } from './http-error.js';

/** Longest we keep reading (and dropping) a request body we already answered, in ms and bytes. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 16 * 1024 * 1024;

/** A new request id: `req_` and 32 lowercase hex digits. */
export function newRequestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}

/**
 * Reads and drops the rest of a body we answered early, so the client sees our response instead
 * of a reset, but never more than LINGER_BYTES or LINGER_MS.
 */
export function linger(req: IncomingMessage): void {
  let dropped = 0;
  const cut = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  };
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', () => {
    clearTimeout(timer);
    req.off('data', onData);
  });
  req.resume();
}

/**
 * Cuts the connection of a response not written out within `ms`: a client that never reads
 * its reply would otherwise hold the connection (and the reply's memory) for as long as it
 * likes. Written out means the response finished and its socket holds no unsent bytes: Node
 * finishes a response once the socket has taken it, even into its own buffer.
 */
export function writeDeadline(res: ServerResponse, ms: number): void {
  // The request's socket: a finished response lets go of its own.
  const socket = res.req.socket;
  const timer = setTimeout(() => {
    if (!res.writableFinished || (!socket.destroyed && socket.writableLength > 0)) {
      res.destroy();
      socket.destroy();
    }
  }, ms);
  timer.unref();
}

/** Answers malformed HTTP, header overflow and header timeouts with a JSON body. */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  requestIdHeaders: readonly string[],
  log: LogSink | null,
): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const id = newRequestId();
  const [status, http] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, new HttpError(431, 'request_too_large_error', 'headers_too_large', 'The request headers are too large.')]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, new HttpError(408, 'request_timeout_error', 'headers_timeout', 'The request was not received in time.')]
        : [400, new HttpError(400, 'invalid_request_error', 'malformed_http', 'The request is not valid HTTP/1.1.')];
  const body = JSON.stringify(http.body(id));
  const ids = requestIdHeaders.map((h) => `${h}: ${id}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n${ids}\r\n${body}`,
  );
  if (log) {
    logLine(log, {
      time: new Date().toISOString(),
      level: 'warn',
      msg: 'request',
      id,
      method: null,
      path: null,
      status,
      latency_ms: 0,
      input_tokens: null,
      bytes_in: 0,
      code: http.code,
    });
  }
}
