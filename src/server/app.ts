/**
 * The HTTP adapter: routes, authentication, limits, the work queue and error mapping over one
 * `Engine`, on plain `node:http`.
 *
 * Why no framework: the interface is three routes with fixed JSON bodies, and every behaviour
 * that matters here (body byte limit and deadline, strict UTF-8, constant-time key checks,
 * token buckets, a bounded queue, 529s, request-id headers, JSON bodies even for malformed
 * HTTP, draining shutdown) is either absent from the usual frameworks or would need their
 * defaults overridden one by one. `node:http` gives direct control of each with no runtime
 * dependency, nothing between the socket and the engine to audit, and nothing to keep
 * patched.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Engine } from '../engine/contract.js';
import { EngineClosedError, RequestValidationError, UnknownModelError } from '../errors.js';
import type { ModelMetadataList, SystemOneResponse, ValidationError } from '../types.js';
import { logLine, type LogSink } from './access-log.js';
import { parseJsonBody, readBody } from './body.js';
import { ClientGoneError, HttpError, retryHeaders } from './http-error.js';
import type { ApiKey, KeyRing } from './keys.js';
import { openApiDocument } from './openapi.js';
import type { ResolvedOptions } from './options.js';
import type { RateLimiter } from './rate-limit.js';
import { QueueFullError, WorkQueue } from './queue.js';
import { answerClientError, linger, newRequestId, writeDeadline } from './connection.js';
import { MAX_DETAIL_ENTRIES, validationBody } from './validation-body.js';
import { ComputeDeadline } from './deadline.js';
import { truncate, unknownModelMessage } from './messages.js';

export { newRequestId };

/** Per-request bookkeeping, for the access log. */
interface RequestContext {
  id: string;
  method: string;
  path: string;
  startedAt: number;
  inputTokens: number | null;
  /** Estimated work units of the evaluation, once known. */
  work: number | null;
  bytesIn: number;
  code?: string;
  error?: string;
}

const ROUTES: Record<string, string> = {
  '/v1/systemone': 'POST',
  '/v1/models': 'GET',
  '/openapi.json': 'GET',
};


function isJsonMediaType(value: string): boolean {
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type);
}

export interface AppDeps {
  engine: Engine;
  keys: KeyRing;
  limiter: RateLimiter;
  options: ResolvedOptions;
  log: LogSink | null;
}

/** The server and its request handling. */
export class HttpApp {
  readonly server: Server;
  /** Evaluations whose body is over `lightBodyBytes`. */
  readonly queue: WorkQueue;
  /**
   * Evaluations with small bodies (at most `lightBodyBytes`): their own slots and backlog, so
   * that they never wait behind long ones. Encoding yields every window slice, so a small
   * request running beside long ones is answered after a few slices of theirs.
   */
  readonly lightQueue: WorkQueue;
  private inFlight = 0;
  private draining = false;
  private drainWaiters: (() => void)[] = [];
  private readonly openapi: string;

  constructor(private readonly deps: AppDeps) {
    const { options } = deps;
    const bounds = { concurrency: options.concurrency, maxQueued: options.maxQueued, maxQueuedWork: options.maxQueuedWork };
    this.queue = new WorkQueue(bounds);
    this.lightQueue = new WorkQueue(bounds);
    this.openapi = JSON.stringify(openApiDocument());
    this.server = createServer(
      {
        // Our own body deadline answers first (with a JSON 408); these are backstops.
        headersTimeout: options.headersTimeoutMs,
        requestTimeout: options.headersTimeoutMs + options.bodyTimeoutMs + 5_000,
        keepAliveTimeout: options.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
        // A missing Host header would otherwise be answered by Node without our JSON body.
        requireHostHeader: false,
      },
      (req, res) => {
        void this.handle(req, res);
      },
    );
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
      answerClientError(error, socket, this.deps.options.requestIdHeaders, this.deps.log),
    );
  }

  /** Requests whose handling started and whose response has not closed. */
  get pending(): number {
    return this.inFlight;
  }

  /** Stops taking work: later requests get 503, responses close their connections. */
  startDraining(): void {
    this.draining = true;
  }

  /** Resolves when no request is in flight. */
  whenDrained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ctx: RequestContext = {
      id: newRequestId(),
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split(/[?#]/, 1)[0] ?? '/',
      startedAt: performance.now(),
      inputTokens: null,
      work: null,
      bytesIn: 0,
    };
    for (const name of this.deps.options.requestIdHeaders) res.setHeader(name, ctx.id);
    this.inFlight++;
    // A pipelined request whose response never got the socket emits no 'close' of its own;
    // the socket's close ends it too. Whichever comes first counts, once.
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      req.socket.off('close', finish);
      this.finished(req, res, ctx);
    };
    res.once('close', finish);
    req.socket.once('close', finish);
    try {
      if (this.draining) {
        throw new HttpError(503, 'service_unavailable_error', 'shutting_down', 'The server is shutting down; retry on another instance.', {}, retryHeaders(1_000), true);
      }
      await this.route(req, res, ctx);
    } catch (error) {
      this.fail(req, res, ctx, error);
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const allowed = ROUTES[ctx.path];
    if (allowed === undefined || ctx.method !== allowed) {
      throw new HttpError(
        404,
        'not_found_error',
        allowed === undefined ? 'unknown_path' : 'method_not_allowed',
        allowed === undefined
          ? `No resource at ${ctx.method} ${truncate(ctx.path, 200)}. Endpoints: POST /v1/systemone, GET /v1/models, GET /openapi.json.`
          : `${ctx.path} accepts ${allowed} only, not ${ctx.method}.`,
        {},
        allowed === undefined ? {} : { allow: allowed },
      );
    }
    if (ctx.path === '/openapi.json') {
      this.sendText(res, 200, this.openapi);
      return;
    }
    const key = this.authenticate(req);
    if (ctx.path === '/v1/models') {
      this.send(res, 200, this.modelsFor(key));
      return;
    }
    await this.evaluate(req, res, ctx, key);
  }

  /** Checks the bearer key; returns it, or `null` when the server runs open. */
  private authenticate(req: IncomingMessage): ApiKey | null {
    if (this.deps.keys.size === 0) return null;
    const result = this.deps.keys.authenticate(req.headers.authorization);
    if (result.ok) return result.key;
    const messages = {
      missing_api_key: "Missing API key: send the header 'Authorization: Bearer <API_KEY>'.",
      malformed_authorization: "Malformed Authorization header: expected 'Bearer <API_KEY>'.",
      invalid_api_key: 'Invalid API key.',
    } as const;
    throw new HttpError(401, 'authentication_error', result.reason, messages[result.reason], {}, { 'www-authenticate': 'Bearer' });
  }

  private async evaluate(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, key: ApiKey | null): Promise<void> {
    const { options, limiter, engine } = this.deps;
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && !isJsonMediaType(contentType)) {
      throw new HttpError(415, 'unsupported_media_type_error', 'unsupported_content_type', `Content-Type must be application/json, not '${truncate(contentType, 100)}'.`);
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw new HttpError(415, 'unsupported_media_type_error', 'unsupported_content_encoding', `Content-Encoding '${truncate(encoding, 100)}' is not supported; send the body uncompressed.`);
    }
    const identity = key ? `key:${key.id}` : `open:${req.socket.remoteAddress ?? 'unknown'}`;
    const admission = await limiter.admit(identity);
    if (!admission.admitted) {
      const what = {
        requests_per_minute: `${limiter.limits.requestsPerMinute} requests per minute`,
        input_tokens_per_second: `${limiter.limits.inputTokensPerSecond} input tokens per second`,
        work_units_per_second: `${limiter.limits.workUnitsPerSecond} work units (state-token equivalents) per second`,
      }[admission.limit];
      throw new HttpError(
        429,
        'rate_limit_error',
        'rate_limited',
        `Rate limit exceeded: ${what} for this key. Retry after ${Math.max(1, Math.ceil(admission.retryAfterMs))} ms.`,
        { limit: admission.limit },
        retryHeaders(admission.retryAfterMs),
      );
    }
    // Refuse early when the backlog a body of the declared length would join is already full.
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    this.throwIfOverloaded(this.laneFor(Number.isFinite(declared) ? declared : Number.POSITIVE_INFINITY));

    const raw = await readBody(req, { maxBytes: options.maxBodyBytes, timeoutMs: options.bodyTimeoutMs, startedAt: ctx.startedAt });
    ctx.bytesIn = raw.length;
    const body = parseJsonBody(raw);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      const kind = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
      throw new HttpError(400, 'invalid_request_error', 'invalid_body', `The request body must be a JSON object (SystemOneRequest), not ${kind}.`);
    }
    const model = (body as { model?: unknown }).model;
    if (key?.models && typeof model === 'string' && !this.mayUse(key, model) && this.resolve(model) !== undefined) {
      throw new HttpError(403, 'permission_error', 'model_not_allowed', `This API key may not use the model '${truncate(model, 200)}'.`, { model });
    }

    const abort = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) abort.abort(new ClientGoneError());
    };
    res.once('close', onClose);
    const deadline = new ComputeDeadline(options.computeTimeoutMs, abort);
    const job = () => {
      deadline.start();
      return engine.evaluate(body, {
        signal: abort.signal,
        onWork: (units) => {
          ctx.work = units;
          void limiter.chargeWork(identity, units).catch(() => undefined);
        },
      });
    };
    let result: SystemOneResponse;
    try {
      // The estimate (the checks evaluate runs before encoding: invalid requests are answered
      // here, without a slot) admits the request by the work already queued in its lane.
      const work = engine.estimateWork ? await engine.estimateWork(body) : 0;
      result = await this.laneFor(raw.length).run(job, abort.signal, work);
    } catch (error) {
      if (deadline.passed && !res.destroyed) throw deadline.error();
      if (error instanceof UnknownModelError) {
        const names = this.modelsFor(key).models.map((m) => m.name);
        throw new HttpError(400, 'invalid_request_error', 'unknown_model', unknownModelMessage(error.model, names), {
          model: error.model,
        });
      }
      throw error;
    } finally {
      deadline.stop();
      res.off('close', onClose);
    }
    ctx.inputTokens = result.usage.input_tokens;
    await limiter.charge(identity, result.usage.input_tokens);
    this.send(res, 200, result);
  }

  private laneFor(bodyBytes: number): WorkQueue {
    return bodyBytes <= this.deps.options.lightBodyBytes ? this.lightQueue : this.queue;
  }

  private throwIfOverloaded(lane: WorkQueue): void {
    const { concurrency, maxQueued } = this.deps.options;
    if (lane.active + lane.queued >= concurrency + maxQueued) throw new QueueFullError(lane.estimateWaitMs());
  }

  private resolve(name: string): string | undefined {
    try {
      return this.deps.engine.resolveModel(name);
    } catch {
      return undefined;
    }
  }

  /**
   * Scopes name the exact model strings a key may send: aliases and versioned ids are
   * distinct entries, so a scope never widens or narrows when an alias moves.
   */
  private mayUse(key: ApiKey | null, name: string): boolean {
    return !key?.models || key.models.includes(name);
  }

  private modelsFor(key: ApiKey | null): ModelMetadataList {
    const list = this.deps.engine.listModels();
    return key?.models ? { models: list.models.filter((m) => this.mayUse(key, m.name)) } : list;
  }

  /** Answers an error; never throws. */
  private fail(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, error: unknown): void {
    if (error instanceof ClientGoneError || (res.destroyed && !res.headersSent)) {
      ctx.code = 'client_closed';
      return;
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof RequestValidationError) {
      ctx.code = 'validation_error';
      this.sendText(res, 422, validationBody(error.detail), error.detail.length > MAX_DETAIL_ENTRIES ? { 'x-validation-errors': String(error.detail.length) } : {});
      return;
    }
    let http: HttpError;
    if (error instanceof HttpError) {
      http = error;
    } else if (error instanceof QueueFullError) {
      http = new HttpError(
        529,
        'overloaded_error',
        'overloaded',
        error.bound === 'work'
          ? `The server is overloaded: the evaluations queued would take too long (over ${this.deps.options.maxQueuedWork} work units). Retry with backoff.`
          : 'The server is overloaded: too many evaluations are queued. Retry with backoff.',
        {},
        retryHeaders(error.retryAfterMs),
      );
    } else if (error instanceof EngineClosedError) {
      http = new HttpError(503, 'service_unavailable_error', 'shutting_down', 'The server is shutting down; retry on another instance.', {}, retryHeaders(1_000), true);
    } else {
      ctx.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      http = new HttpError(500, 'api_error', 'internal_error', `The server failed to process the request. Quote request id ${ctx.id} when reporting it.`);
    }
    ctx.code = http.code;
    if (http.closeConnection) res.setHeader('connection', 'close');
    this.sendText(res, http.status, JSON.stringify(http.body(ctx.id)), http.headers);
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    this.sendText(res, status, JSON.stringify(body));
  }

  private sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    if (this.draining) res.setHeader('connection', 'close');
    res.writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
    });
    res.end(text);
    writeDeadline(res, this.deps.options.writeTimeoutMs);
  }

  private finished(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): void {
    // A body we answered without reading: read and drop it for a while, then cut the connection.
    if (!req.complete && !req.socket.destroyed) linger(req);
    this.inFlight--;
    if (this.inFlight === 0 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
    if (!this.deps.log) return;
    const aborted = !res.writableFinished;
    const status = aborted && !res.headersSent ? 0 : res.statusCode;
    logLine(this.deps.log, {
      time: new Date().toISOString(),
      level: status >= 500 ? 'error' : status >= 400 || aborted ? 'warn' : 'info',
      msg: 'request',
      id: ctx.id,
      method: ctx.method,
      path: truncate(ctx.path, 200),
      status,
      latency_ms: Math.round((performance.now() - ctx.startedAt) * 100) / 100,
      input_tokens: ctx.inputTokens,
      work_units: ctx.work,
      bytes_in: ctx.bytesIn,
      ...(ctx.code ? { code: ctx.code } : {}),
      ...(aborted ? { aborted: true } : {}),
      ...(ctx.error ? { error: ctx.error } : {}),
    });
  }
}
