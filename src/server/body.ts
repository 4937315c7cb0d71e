/**
 * Reading and parsing a request body under a byte limit and a deadline.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { ClientGoneError, HttpError } from './http-error.js';
import { truncate } from './messages.js';

export interface BodyLimits {
  /** Most bytes accepted. */
  maxBytes: number;
  /** Deadline for the whole body, counted from when the request's headers arrived. */
  timeoutMs: number;
  /** When the headers arrived (`performance.now()`). */
  startedAt: number;
}

/** Reads the whole body, or throws `HttpError` 413/408 or `ClientGoneError`. */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limits.maxBytes) {
    return Promise.reject(tooLarge(limits.maxBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: Error | null, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      // Whatever is still coming is read and dropped; the response closes the connection.
      if (error) req.resume();
      if (error) reject(error);
      else resolve(body!);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limits.maxBytes) finish(tooLarge(limits.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(null, Buffer.concat(chunks, size));
    const onError = (): void => finish(new ClientGoneError());
    const onClose = (): void => {
      if (!req.complete) finish(new ClientGoneError());
    };
    const remaining = Math.max(0, limits.timeoutMs - (performance.now() - limits.startedAt));
    const timer = setTimeout(
      () =>
        finish(
          new HttpError(
            408,
            'request_timeout_error',
            'body_timeout',
            `The request body was not received within ${limits.timeoutMs} ms.`,
            { timeout_ms: limits.timeoutMs },
            {},
            true,
          ),
        ),
      remaining,
    );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(
    413,
    'request_too_large_error',
    'body_too_large',
    `The request body exceeds the limit of ${maxBytes} bytes.`,
    { limit_bytes: maxBytes },
    {},
    true,
  );
}

/**
 * Deepest JSON nesting accepted before parsing. No valid request comes near it (content may
 * nest 64 levels, inside at most 5 levels of request structure), and refusing deeper bodies
 * before `JSON.parse` and validation keeps a 1 MiB body of brackets from holding the event
 * loop for most of a second.
 */
export const MAX_JSON_NESTING = 1_000;

/** Whether `text` opens more than `limit` arrays/objects at once (strings skipped). Linear. */
export function exceedsNesting(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Decodes UTF-8 strictly and parses JSON; throws `HttpError` 400 on any failure. */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new HttpError(400, 'invalid_request_error', 'invalid_utf8', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw new HttpError(400, 'invalid_request_error', 'empty_body', 'The request body is empty; send a JSON object.');
  if (exceedsNesting(text, MAX_JSON_NESTING)) {
    throw new HttpError(
      400,
      'invalid_request_error',
      'json_too_deep',
      `The request body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep.`,
      { limit: MAX_JSON_NESTING },
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8's message names the position; it quotes at most a short excerpt of the body.
    const detail = error instanceof SyntaxError ? error.message : 'unparseable';
    throw new HttpError(400, 'invalid_request_error', 'invalid_json', `The request body is not valid JSON: ${truncate(detail, 200)}`);
  }
}
