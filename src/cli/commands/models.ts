/**
 * `evalmodel models`: the model listing (`GET /v1/models`), read from the registry manifest
 * without loading any weights.
 * @module
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, EXIT } from '../errors.js';
import { wantsHelp } from '../help.js';
import type { CliIO } from '../io.js';

/** One line for the top-level help's list of commands. */
export const summary = 'List the model names a request may send';

/** The text of `evalmodel models --help`. */
export const help = `Usage: evalmodel models [options]

${summary}: the aliases, as GET /v1/models returns them,
with the versioned id each one resolves to. Versioned ids (evalmodel-<major>.<minor>.<patch>)
are accepted too, whether listed or not. Loads no weights.

Options:
      --json              print the ModelMetadataList body
      --model-dir <dir>   with the NLI model folder that 'serve --model-dir' adds
      --manifest <file>   a model registry instead of the built-in one
  -h, --help              show this help
`;

/** Runs `evalmodel models`; resolves to the exit status. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' }, 'model-dir': { type: 'string' }, manifest: { type: 'string' } }, strict: true });
  const { registryFor } = await import('../../engine/registry-config.js');
  let registry;
  try {
    registry = registryFor({
      ...(values.manifest !== undefined ? { manifest: path.resolve(values.manifest) } : {}),
      ...(values['model-dir'] !== undefined ? { modelDir: path.resolve(values['model-dir']) } : {}),
    });
  } catch (error) {
    throw new CliError(`cannot use the model registry: ${(error as Error).message}`, EXIT.usage);
  }
  const list = registry.list();
  if (values.json) {
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return EXIT.ok;
  }
  const rows = [
    ['NAME', 'RESOLVES TO', 'RELEASED', 'DESCRIPTION'],
    ...list.models.map((m) => [m.name, registry.resolve(m.name), m.release_date, m.description]),
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) io.stdout.write(`${r.slice(0, 3).map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}  ${r[3]}\n`);
  return EXIT.ok;
}
