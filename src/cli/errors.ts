/**
 * Exit statuses and the error type every command throws for a failure it can explain.
 * @module
 */

/** Exit statuses of `evalmodel`. */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** The run failed: the model could not load, a benchmark failed, the server stopped on an error. */
  runtime: 1,
  /** The input is wrong and must be fixed: unknown flag, missing state, invalid request (422), unknown model. */
  usage: 2,
} as const;

/** An error with a message meant for the person at the terminal and the exit status to end with. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.runtime,
    /** Extra lines printed after the message (e.g. each 422 problem). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** A problem with the command line itself; printed with a pointer to the command's `--help`. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(
    message: string,
    /** The command whose help to point at (`ask`, `serve`, ...), or undefined for the top level. */
    readonly command?: string,
  ) {
    super(message, EXIT.usage);
  }
}
