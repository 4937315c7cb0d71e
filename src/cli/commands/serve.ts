/**
 * `evalmodel serve`: the HTTP server of `src/server` (SPEC.md's interface) on this machine.
 * Flags and their environment fallbacks are parsed by `src/cli/serve.ts` (the server's own
 * entry), so both entries accept exactly the same options; this command adds the progress
 * indicator while the model loads and the CLI's exit statuses.
 * @module
 */
import type { Engine } from '../../engine/contract.js';
import { SERVE_USAGE, parseServeArgs } from '../serve.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import type { CliIO } from '../io.js';
import { startProgress } from '../progress.js';

/** One line for the top-level help's list of commands. */
export const summary = 'Serve POST /v1/systemone and GET /v1/models over HTTP';

/** The text of `evalmodel serve --help`. */
export const help = `${SERVE_USAGE}

${summary}: the interface the
official client @typesafe-ai/sdk speaks (see docs/http.md).
Prints "evalmodel listening on <url>" on standard output once it accepts requests; the access
log (one JSON line per request) goes to standard error. Runs until SIGINT (Ctrl-C) or SIGTERM,
then drains in-flight requests and exits 0; a second signal stops at once.

Exit status: 0 stopped by a signal; 2 bad option, unreadable keys file, or no key on a
non-loopback address without --open; 1 the model failed to load, the port could not be bound,
or the shutdown failed.
`;

/** Runs `evalmodel serve`; resolves to the exit status once the server has stopped. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parseServeArgs>;
  try {
    parsed = parseServeArgs(argv, io.env);
  } catch (error) {
    // The parser appends the usage text to its messages; the first line is the message.
    throw new UsageError((error as Error).message.split('\n')[0]!, 'serve');
  }
  if (parsed.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  const options = parsed.options;
  const server = await import('../../server/index.js');

  // Checked before the weights load, so a bad keys file or port fails at once.
  if (options.keysFile !== undefined) {
    try {
      server.readKeysFile(options.keysFile);
    } catch (error) {
      throw new CliError(`cannot use keys file '${options.keysFile}': ${(error as Error).message}`, EXIT.usage);
    }
  }
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port >= 0 && options.port <= 65535)) {
    throw new UsageError(`--port must be an integer from 0 to 65535, not '${options.port}'`, 'serve');
  }

  const progress = startProgress(io.stderr, 'Loading the model…');
  let engine: Engine;
  try {
    const { createEngine } = await import('../../engine/engine.js');
    engine = await createEngine(options.engineConfig ?? {});
  } catch (error) {
    throw new CliError(`the model failed to load: ${(error as Error).message}`, EXIT.runtime);
  } finally {
    progress.stop();
  }

  let handle: Awaited<ReturnType<typeof server.serve>>;
  try {
    handle = await server.serve({ ...options, engine });
  } catch (error) {
    await engine.close();
    const message = (error as Error).message;
    if (/No API key configured/.test(message) || error instanceof RangeError) throw new CliError(message, EXIT.usage);
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${options.host ?? server.DEFAULTS.host}:${options.port ?? server.DEFAULTS.port}`;
    throw new CliError(code === 'EADDRINUSE' ? `cannot listen on ${where}: the address is already in use` : `cannot start the server: ${message}`, EXIT.runtime);
  }
  io.stdout.write(`evalmodel listening on ${handle.url}\n`);

  return new Promise<number>((resolve) => {
    const remove = server.installSignalHandlers(handle, {
      onClosed: () => {
        remove();
        // serve() was handed the engine, so closing the engine is ours.
        void engine.close().then(() => resolve(EXIT.ok));
      },
      onForce: () => {
        io.stderr.write('evalmodel serve: second signal, stopping without draining\n');
        resolve(130);
      },
      onError: (error) => {
        io.stderr.write(`evalmodel serve: shutdown failed: ${(error as Error).message}\n`);
        resolve(EXIT.runtime);
      },
    });
  });
}
