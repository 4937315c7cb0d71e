/**
 * `evalmodel serve`: the HTTP server of `src/server` (SPEC.md's interface) on this machine.
 * The engine is loaded here, under the progress indicator, and handed to `serve()`.
 * @module
 */
import { parseArgs } from 'node:util';
import type { BackendName, Engine, EngineConfig } from '../../engine/contract.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { wantsHelp } from '../help.js';
import type { CliIO } from '../io.js';
import { startProgress } from '../progress.js';

export const summary = 'Serve POST /v1/systemone and GET /v1/models over HTTP';

export const help = `Usage: evalmodel serve [options]

${summary} (the interface of SPEC.md; see docs/http.md).
Runs until SIGINT (Ctrl-C) or SIGTERM, then drains in-flight requests and exits 0.

Options:
      --host <address>     address to listen on (default 127.0.0.1)
      --port <n>           port; 0 picks a free one (default 8000)
      --keys-file <path>   API keys, one a line, optionally key:model1,model2; # starts a comment
                           (without it, keys come from EVALMODEL_API_KEYS, comma-separated)
      --open               serve without authentication even on a non-loopback address when no
                           key is configured (a loopback address is served open anyway)
      --backend <name>     tfjs backend: tensorflow, wasm or cpu (default: first that starts)
      --quiet              no access log on stderr
  -h, --help               show this help

Prints "Listening on <url>" on standard output once it accepts requests.

Exit status: 0 stopped by a signal; 2 bad option, unreadable keys file, or no key on a
non-loopback address without --open; 1 the model failed to load or the port could not be bound.
`;

const BACKENDS: readonly BackendName[] = ['tensorflow', 'wasm', 'cpu'];

/** Runs `evalmodel serve`; resolves to the exit status once the server has stopped. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'keys-file': { type: 'string' },
      open: { type: 'boolean' },
      backend: { type: 'string' },
      quiet: { type: 'boolean' },
    },
    strict: true,
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, not '${values.port}'`, 'serve');
  }
  if (values.backend !== undefined && !BACKENDS.includes(values.backend as BackendName)) {
    throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}, not '${values.backend}'`, 'serve');
  }
  const server = await import('../../server/index.js');

  // Keys are checked before the weights load, so a bad keys file fails at once.
  if (values['keys-file'] !== undefined) {
    try {
      server.readKeysFile(values['keys-file']);
    } catch (error) {
      throw new CliError(`cannot use keys file '${values['keys-file']}': ${(error as Error).message}`, EXIT.usage);
    }
  }

  const progress = startProgress(io.stderr, 'Loading the model…');
  let engine: Engine;
  try {
    const { createEngine } = await import('../../engine/engine.js');
    const config: EngineConfig = values.backend ? { backend: values.backend as BackendName } : {};
    engine = await createEngine(config);
  } catch (error) {
    throw new CliError(`the model failed to load: ${(error as Error).message}`, EXIT.runtime);
  } finally {
    progress.stop();
  }

  let handle: Awaited<ReturnType<typeof server.serve>>;
  try {
    handle = await server.serve({
      engine,
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(values['keys-file'] !== undefined ? { keysFile: values['keys-file'] } : {}),
      ...(values.open ? { allowOpen: true } : {}),
      ...(values.quiet ? { log: false as const } : {}),
      env: io.env,
    });
  } catch (error) {
    await engine.close();
    const message = (error as Error).message;
    if (/No API key configured/.test(message) || error instanceof RangeError) throw new CliError(message, EXIT.usage);
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(code === 'EADDRINUSE' ? `cannot listen: ${values.host ?? '127.0.0.1'}:${port ?? 8000} is already in use` : `cannot start the server: ${message}`, EXIT.runtime);
  }
  io.stdout.write(`Listening on ${handle.url}${handle.authenticated ? '' : ' (no API key configured: unauthenticated)'}\n`);

  return new Promise<number>((resolve) => {
    const remove = server.installSignalHandlers(handle, {
      onClosed: () => {
        remove();
        void engine.close().then(() => resolve(EXIT.ok));
      },
      onForce: () => {
        io.stderr.write('evalmodel serve: second signal, stopping without draining\n');
        resolve(EXIT.runtime);
      },
      onError: (error) => {
        io.stderr.write(`evalmodel serve: shutdown failed: ${(error as Error).message}\n`);
        resolve(EXIT.runtime);
      },
    });
  });
}
