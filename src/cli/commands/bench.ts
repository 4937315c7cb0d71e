/**
 * `evalmodel bench`: runs the project's benchmarks, bench/accuracy and bench/speed, each as
 * its own Node process (so that one's memory and tfjs state never colour the other's figures),
 * and says which of them is missing or not built.
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, EXIT, UsageError } from '../errors.js';
import { wantsHelp } from '../help.js';
import type { CliIO } from '../io.js';
import { packageRoot } from '../paths.js';

/** One line for the top-level help's list of commands. */
export const summary = 'Run the accuracy and speed benchmarks';

/** The benchmarks, in the order they run. */
export const BENCHMARKS = ['accuracy', 'speed'] as const;
type Benchmark = (typeof BENCHMARKS)[number];

/** The text of `evalmodel bench --help`. */
export const help = `Usage: evalmodel bench [accuracy|speed ...] [options] [-- args for the benchmarks]

${summary} (both when none is named). Each runs as its
own process from the compiled tree (dist/bench/<name>.js or dist/bench/<name>/index.js,
built by npm run build) and prints its own report. The benchmarks are not part of the
installed package: run them from a clone of the source repository, or point --root
at one. A benchmark missing or not built is reported.

Options:
      --root <dir>   project folder holding bench/ and dist/bench/ (default: this package)
  -h, --help         show this help

Exit status: 0 every named benchmark ran and succeeded; 1 one is missing, not built or failed;
2 bad command line.
`;

/** Compiled entry points a benchmark may have, relative to the project root. */
function candidates(name: Benchmark): string[] {
  return [`dist/bench/${name}.js`, `dist/bench/${name}/index.js`, `dist/bench/${name}/main.js`, `dist/bench/${name}/run.js`];
}

/** Whether the benchmark's sources exist (so that "not built" can be told from "missing"). */
function hasSources(root: string, name: Benchmark): boolean {
  return ['.ts', '.js', '.mjs', ''].some((ext) => existsSync(path.join(root, 'bench', name + ext)));
}

function runNode(file: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Runs `evalmodel bench`; resolves to the exit status. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  const end = argv.indexOf('--');
  const own = end < 0 ? argv : argv.slice(0, end);
  const passThrough = end < 0 ? [] : argv.slice(end + 1);
  const { values, positionals } = parseArgs({ args: own, options: { root: { type: 'string' } }, allowPositionals: true, strict: true });
  for (const p of positionals) {
    if (!(BENCHMARKS as readonly string[]).includes(p)) throw new UsageError(`unknown benchmark '${p}'; expected ${BENCHMARKS.join(' or ')}`, 'bench');
  }
  const selected = positionals.length > 0 ? BENCHMARKS.filter((b) => positionals.includes(b)) : [...BENCHMARKS];
  const root = path.resolve(values.root ?? packageRoot());

  const problems: string[] = [];
  for (const name of selected) {
    const entry = candidates(name).find((c) => existsSync(path.join(root, c)));
    if (!entry) {
      const why = hasSources(root, name)
        ? `bench/${name} is present but not built (none of ${candidates(name).join(', ')}); run npm run build`
        : `bench/${name} is not part of the installed package: the benchmarks run from a clone of evalmodel's source repository (there: npm install && npm run bench:${name}; or evalmodel bench --root <clone>)`;
      io.stderr.write(`evalmodel bench: ${why}\n`);
      problems.push(`bench/${name}: ${hasSources(root, name) ? 'not built' : 'missing'}`);
      continue;
    }
    io.stderr.write(`evalmodel bench: running bench/${name} (${entry})\n`);
    const code = await runNode(path.join(root, entry), passThrough, root);
    if (code !== 0) problems.push(`bench/${name}: exited with status ${code}`);
  }
  if (problems.length > 0) throw new CliError(`${problems.length} of ${selected.length} benchmark${selected.length === 1 ? '' : 's'} did not run to success`, EXIT.runtime, problems.map((p) => `  ${p}`));
  return EXIT.ok;
}
