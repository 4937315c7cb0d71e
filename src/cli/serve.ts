/**
 * `evalmodel serve`: starts the HTTP server from flags and environment variables.
 *
 *   evalmodel serve [--host 127.0.0.1] [--port 8000] [--keys-file FILE] [--open] [--workers N] ...
 *
 * Also runnable directly: `node dist/src/cli/serve.js --port 0`. Prints one line
 * `evalmodel listening on <url>` to stdout once it listens; the access log goes to stderr.
 * SIGTERM or SIGINT drains in-flight requests and exits 0; a second signal exits at once.
 * @module
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import { installSignalHandlers, serve, silentSink, type ServeOptions, type ServerHandle } from '../server/index.js';
import path from 'node:path';
import type { BackendName, EngineConfig } from '../engine/contract.js';
import { isEntryPoint } from './paths.js';
import { backendLine } from './format.js';

export const SERVE_USAGE = `Usage: evalmodel serve [options]

Options (environment variable in brackets):
  --host HOST               listen address [EVALMODEL_HOST] (default 127.0.0.1)
  --port PORT               listen port, 0 for any free one [EVALMODEL_PORT] (default 8000)
  --keys-file FILE          API keys, one a line, optionally key:model1,model2 [EVALMODEL_KEYS_FILE]
                            (keys also come from EVALMODEL_API_KEYS, comma-separated)
  --open                    allow serving without keys on a non-loopback host
  --rpm N                   requests per minute per key, 0 = off [EVALMODEL_RPM] (default 1200)
  --tps N                   input tokens per second per key, 0 = off [EVALMODEL_TPS] (default 250000)
  --wps N                   work units (state-token equivalents) per second per key, 0 = off
                            [EVALMODEL_WPS] (default 2000, about one core)
  --max-work N              most work units one request may cost, 0 = off (422 too_much_work)
                            [EVALMODEL_MAX_WORK] (default 100000)
  --compute-timeout-ms N    longest one evaluation may compute, 0 = off (504)
                            [EVALMODEL_COMPUTE_TIMEOUT_MS] (default 60000)
  --write-timeout-ms N      longest a reply may wait for a client to read it
                            [EVALMODEL_WRITE_TIMEOUT_MS] (default 30000)
  --concurrency N           evaluations at once [EVALMODEL_CONCURRENCY] (default 2)
  --max-queue N             queued evaluations before 529 [EVALMODEL_MAX_QUEUE] (default 16)
  --max-queued-work N       work units of queued evaluations before 529, 0 = off
                            [EVALMODEL_MAX_QUEUED_WORK] (default 20000 per concurrency slot)
  --max-body-bytes N        largest request body [EVALMODEL_MAX_BODY_BYTES] (default 1048576)
  --body-timeout-ms N       deadline for a request body [EVALMODEL_BODY_TIMEOUT_MS] (default 10000)
  --shutdown-grace-ms N     longest drain on shutdown [EVALMODEL_SHUTDOWN_GRACE_MS] (default 30000)
  --request-id-headers A,B  response headers carrying the request id
                            (default x-service-request-id,x-typesafe-request-id)
  --backend NAME            encoder backend: onnxruntime-node, tensorflow, wasm or cpu
                            [EVALMODEL_BACKEND] (default: the first that starts)
  --threads N               onnxruntime-node's intra-op threads per engine [EVALMODEL_THREADS]
                            (default: the number of cores with onnxruntime-node, else 1)
  --model-dir DIR           also serve the NLI model in this folder (transformers.js layout; needs
                            the optional package @xenova/transformers) under the id and alias of
                            its evalmodel.json (default evalmodel-0.1.0, evalmodel-nli) [EVALMODEL_MODEL_DIR]
  --manifest FILE           the model registry to serve instead of the built-in one [EVALMODEL_MANIFEST]
  --allow-remote            let the registry's hub ids be downloaded (default: offline)
  --workers N               engine worker threads, one core each; 1 = one engine in the
                            server's own thread [EVALMODEL_WORKERS] (default: 1 with
                            onnxruntime-node, its threads using every core; else the number of cores)
  --quiet                   no access log
  -h, --help                this text`;

/** Whether the optional onnxruntime-node package is installed (resolved, not loaded). */
function nativeInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    return true;
  } catch {
    return false;
  }
}

/** Parsed `serve` arguments. */
export type ServeCommand = { help: true } | { help: false; options: ServeOptions };

const numeric = (flag: string, value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`${flag} expects a number, got '${value}'`);
  return n;
};

/** Parses `serve` flags (after the word `serve`) with the environment as fallback. */
export function parseServeArgs(argv: readonly string[], env: Record<string, string | undefined> = process.env): ServeCommand {
  const flags = new Map<string, string>();
  const booleans = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return { help: true };
    if (arg === '--open' || arg === '--quiet' || arg === '--allow-remote') {
      booleans.add(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw new Error(`Unexpected argument '${arg}'\n\n${SERVE_USAGE}`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new Error(`${name} needs a value`);
    flags.set(name, value);
  }
  const known = new Set([
    '--host',
    '--port',
    '--keys-file',
    '--rpm',
    '--tps',
    '--wps',
    '--max-work',
    '--compute-timeout-ms',
    '--write-timeout-ms',
    '--concurrency',
    '--max-queue',
    '--max-queued-work',
    '--max-body-bytes',
    '--body-timeout-ms',
    '--shutdown-grace-ms',
    '--request-id-headers',
    '--backend',
    '--workers',
    '--threads',
    '--model-dir',
    '--manifest',
  ]);
  for (const name of flags.keys()) if (!known.has(name)) throw new Error(`Unknown option '${name}'\n\n${SERVE_USAGE}`);
  const pick = (flag: string, envName?: string): string | undefined => flags.get(flag) ?? (envName ? env[envName]?.trim() || undefined : undefined);
  const num = (flag: string, envName: string): number | undefined => {
    const v = pick(flag, envName);
    return v === undefined ? undefined : numeric(flag, v);
  };

  const options: ServeOptions = { env };
  const host = pick('--host', 'EVALMODEL_HOST');
  if (host !== undefined) options.host = host;
  const port = num('--port', 'EVALMODEL_PORT');
  if (port !== undefined) options.port = port;
  const keysFile = pick('--keys-file', 'EVALMODEL_KEYS_FILE');
  if (keysFile !== undefined) {
    options.keysFile = keysFile;
    // With a keys file, EVALMODEL_API_KEYS still counts.
    options.keys = (env.EVALMODEL_API_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
  }
  if (booleans.has('--open')) options.allowOpen = true;
  const rpm = num('--rpm', 'EVALMODEL_RPM');
  const tps = num('--tps', 'EVALMODEL_TPS');
  const wps = num('--wps', 'EVALMODEL_WPS');
  if (rpm !== undefined || tps !== undefined || wps !== undefined) {
    options.rateLimits = {};
    if (rpm !== undefined) options.rateLimits.requestsPerMinute = rpm;
    if (tps !== undefined) options.rateLimits.inputTokensPerSecond = tps;
    if (wps !== undefined) options.rateLimits.workUnitsPerSecond = wps;
  }
  const computeTimeout = num('--compute-timeout-ms', 'EVALMODEL_COMPUTE_TIMEOUT_MS');
  if (computeTimeout !== undefined) options.computeTimeoutMs = computeTimeout;
  const writeTimeout = num('--write-timeout-ms', 'EVALMODEL_WRITE_TIMEOUT_MS');
  if (writeTimeout !== undefined) options.writeTimeoutMs = writeTimeout;
  const maxWork = num('--max-work', 'EVALMODEL_MAX_WORK');
  const concurrency = num('--concurrency', 'EVALMODEL_CONCURRENCY');
  if (concurrency !== undefined) options.concurrency = concurrency;
  const maxQueued = num('--max-queue', 'EVALMODEL_MAX_QUEUE');
  if (maxQueued !== undefined) options.maxQueued = maxQueued;
  const maxQueuedWork = num('--max-queued-work', 'EVALMODEL_MAX_QUEUED_WORK');
  if (maxQueuedWork !== undefined) options.maxQueuedWork = maxQueuedWork;
  const maxBody = num('--max-body-bytes', 'EVALMODEL_MAX_BODY_BYTES');
  if (maxBody !== undefined) options.maxBodyBytes = maxBody;
  const bodyTimeout = num('--body-timeout-ms', 'EVALMODEL_BODY_TIMEOUT_MS');
  if (bodyTimeout !== undefined) options.bodyTimeoutMs = bodyTimeout;
  const grace = num('--shutdown-grace-ms', 'EVALMODEL_SHUTDOWN_GRACE_MS');
  if (grace !== undefined) options.shutdownGraceMs = grace;
  const idHeaders = pick('--request-id-headers');
  if (idHeaders !== undefined) options.requestIdHeaders = idHeaders.split(',').map((h) => h.trim()).filter(Boolean);
  const engineConfig: EngineConfig = {};
  const backend = pick('--backend', 'EVALMODEL_BACKEND');
  if (backend !== undefined) {
    if (!['onnxruntime-node', 'tensorflow', 'wasm', 'cpu'].includes(backend)) {
      throw new Error(`--backend must be onnxruntime-node, tensorflow, wasm or cpu, got '${backend}'`);
    }
    engineConfig.backend = backend as BackendName;
  }
  const threads = num('--threads', 'EVALMODEL_THREADS');
  if (threads !== undefined) {
    if (!Number.isInteger(threads) || threads < 1) throw new Error(`--threads expects an integer >= 1, got '${threads}'`);
    engineConfig.threads = threads;
  }
  const modelDir = pick('--model-dir', 'EVALMODEL_MODEL_DIR');
  if (modelDir !== undefined) engineConfig.modelDir = path.resolve(modelDir);
  const manifest = pick('--manifest', 'EVALMODEL_MANIFEST');
  if (manifest !== undefined) engineConfig.manifest = path.resolve(manifest);
  if (booleans.has('--allow-remote')) engineConfig.allowRemoteModels = true;
  if (maxWork !== undefined) engineConfig.maxRequestWork = maxWork;
  if (Object.keys(engineConfig).length > 0) options.engineConfig = engineConfig;
  // Defaults by measurement (docs/performance.md, `npm run bench:speed:backends`): with
  // onnxruntime-node one engine whose intra-op threads use every core beats a pool of
  // one-thread engines in latency and throughput; tfjs' wasm backend computes on one thread, so
  // there one engine per core.
  const givenWorkers = num('--workers', 'EVALMODEL_WORKERS');
  const native = (engineConfig.backend ?? 'onnxruntime-node') === 'onnxruntime-node' && nativeInstalled();
  if (native && engineConfig.threads === undefined && givenWorkers === undefined) {
    engineConfig.threads = os.availableParallelism();
    options.engineConfig = engineConfig;
  }
  const workers = givenWorkers ?? (native ? 1 : os.availableParallelism());
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers expects an integer >= 1, got '${workers}'`);
  options.workers = workers;
  if (booleans.has('--quiet')) options.log = silentSink;
  return { help: false, options };
}

/**
 * Runs `serve` with its arguments: starts the server, installs SIGTERM/SIGINT handlers and
 * prints the listening line. Resolves with the handle; exits the process once drained.
 */
export async function serveCommand(argv: readonly string[] = process.argv.slice(2), env = process.env): Promise<ServerHandle | null> {
  const parsed = parseServeArgs(argv, env);
  if (parsed.help) {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return null;
  }
  const handle = await serve(parsed.options);
  installSignalHandlers(handle, {
    onClosed: () => process.exit(0),
    onForce: () => process.exit(130),
    onError: (error) => {
      process.stderr.write(`evalmodel: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  });
  process.stdout.write(`evalmodel listening on ${handle.url} · backend ${backendLine(handle.engine.stats())}\n`);
  return handle;
}

if (isEntryPoint(import.meta.url)) {
  serveCommand().catch((error: unknown) => {
    process.stderr.write(`evalmodel serve: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
