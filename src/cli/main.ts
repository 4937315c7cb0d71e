#!/usr/bin/env node
/**
 * The `evalmodel` command line: `ask`, `serve`, `models`, `bench`.
 *
 * Arguments are parsed with `node:util`'s `parseArgs` rather than a CLI framework: four
 * commands with a handful of flags each need no more than it offers (typed options, repeatable
 * flags, short aliases, strict unknown-flag errors, tokens to keep question order), it ships
 * with Node 20, and so the installed package gains no dependency and starts fast.
 * @module
 */
import { CliError, EXIT, UsageError } from './errors.js';
import type { CliIO } from './io.js';
import { isEntryPoint, packageVersion } from './paths.js';
import * as ask from './commands/ask.js';
import * as bench from './commands/bench.js';
import * as models from './commands/models.js';
import * as serve from './commands/serve.js';

/** A subcommand: its one-line summary, its full help and how to run it. */
interface Command {
  summary: string;
  help: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

/** The subcommands, in the order the help lists them. */
export const COMMANDS: Record<string, Command> = { ask, serve, models, bench };

/** Top-level help. */
export function mainHelp(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  return `Usage: evalmodel <command> [options]

Ask typed questions (noul, choice, score) about a text and get answers with probabilities
from a transformer encoder running on this machine.

Commands:
${names.map((n) => `  ${n.padEnd(width)}   ${COMMANDS[n]!.summary}`).join('\n')}

Options:
  -h, --help       show this help; 'evalmodel <command> --help' or 'evalmodel help <command>'
                   for a command's
  -v, --version    print the version

Example:
  evalmodel ask "The parcel arrived broken and late." --noul "Is the customer unhappy?"

Exit status: 0 success; 1 the run failed; 2 bad command line or invalid request.
Documentation: npm run docs:build && npm run docs:serve (in the repository).
`;
}

function reportError(error: unknown, io: CliIO, command?: string): number {
  if (error instanceof CliError) {
    io.stderr.write(`evalmodel: error: ${error.message}\n`);
    for (const line of error.details) io.stderr.write(`${line}\n`);
    if (error instanceof UsageError) io.stderr.write(`Run 'evalmodel ${error.command ? `${error.command} ` : ''}--help' for usage.\n`);
    return error.exitCode;
  }
  // parseArgs' own errors (unknown option, missing value) are usage errors.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    io.stderr.write(`evalmodel: error: ${(error as Error).message}\n`);
    io.stderr.write(`Run 'evalmodel ${command ? `${command} ` : ''}--help' for usage.\n`);
    return EXIT.usage;
  }
  io.stderr.write(`evalmodel: error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT.runtime;
}

/** Runs the command line `argv` (without node and the script); resolves to the exit status. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === '--help' || first === '-h') {
      (first === undefined ? io.stderr : io.stdout).write(mainHelp());
      return first === undefined ? EXIT.usage : EXIT.ok;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (first === 'help') {
      const topic = rest[0];
      if (topic === undefined) {
        io.stdout.write(mainHelp());
        return EXIT.ok;
      }
      const command = COMMANDS[topic];
      if (!command || !Object.hasOwn(COMMANDS, topic)) throw new UsageError(`unknown command '${topic}'`);
      io.stdout.write(command.help);
      return EXIT.ok;
    }
    const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
    if (!command) {
      throw new UsageError(first.startsWith('-') ? `unknown option '${first}' (a command comes first)` : `unknown command '${first}'; expected one of ${Object.keys(COMMANDS).join(', ')}`);
    }
    return await command.run(rest, io);
  } catch (error) {
    return reportError(error, io, first !== undefined && Object.hasOwn(COMMANDS, first) ? first : undefined);
  }
}

if (isEntryPoint(import.meta.url)) {
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
  // `serve` may leave sockets behind after a forced stop; everything else exits on its own.
  if (process.argv[2] === 'serve') process.exit(code);
  process.exitCode = code;
}
