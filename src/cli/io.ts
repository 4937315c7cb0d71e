/**
 * What a command reads and writes, passed in rather than taken from `process` so that the
 * commands can be driven from tests.
 * @module
 */

/** A stream the CLI writes text to. `isTTY` and `columns` mirror Node's tty.WriteStream. */
export interface OutStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** The process' streams and environment, as the commands see them. */
export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  /** Standard input; `isTTY` true means nobody piped anything in. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Reads a stream to its end as UTF-8 text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
