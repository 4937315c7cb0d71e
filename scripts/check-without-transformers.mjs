#!/usr/bin/env node
/**
 * Checks that evalmodel installs and works for a user who does not install the optional peer
 * dependency `@xenova/transformers` (what `npm install evalmodel` gives: npm does not install
 * optional peers, nor devDependencies):
 *
 * 1. package.json names it only as an optional peer (and a devDependency, for the tests);
 * 2. the production dependency tree (`npm ls --omit=dev --omit=optional --omit=peer`) holds
 *    neither it nor onnxruntime nor sharp;
 * 3. with the package made unresolvable (a module resolve hook in a child process), the built
 *    engine and CLI answer on the built-in model, and a transformers-nli model folder fails
 *    with the error that says what to install.
 *
 * Run after `npm run build`: `npm run check:optional`. Prints "N passed, N failed".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = '@xenova/transformers';
const HEAVY = [PACKAGE, 'onnxruntime-node', 'onnxruntime-web', 'onnxruntime-common', 'sharp'];
let passed = 0;
let failed = 0;

function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `\n     ${detail.split('\n').join('\n     ')}` : ''}\n`);
}

// 1. package.json
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
check(`${PACKAGE} is an optional peer dependency`, Boolean(pkg.peerDependencies?.[PACKAGE]) && pkg.peerDependenciesMeta?.[PACKAGE]?.optional === true);
check(`${PACKAGE} is not a dependency or optional dependency`, !pkg.dependencies?.[PACKAGE] && !pkg.optionalDependencies?.[PACKAGE]);

// 2. The production tree.
let tree = '';
try {
  tree = execFileSync('npm', ['ls', '--omit=dev', '--omit=optional', '--omit=peer', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
} catch (error) {
  // npm ls exits non-zero on extraneous packages; its output is still the tree.
  tree = error.stdout ?? '';
}
const inTree = HEAVY.filter((name) => tree.split('\n').some((line) => line.endsWith(`node_modules/${name}`)));
check('the production dependency tree has no transformers.js, onnxruntime or sharp', tree.includes(ROOT) && inTree.length === 0, inTree.join(', '));

// 3. Without the package, in a child process.
const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === '${PACKAGE}' || specifier.startsWith('${PACKAGE}/')) {
    const error = new Error("Cannot find package '${PACKAGE}' (hidden by check-without-transformers)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
const importFlag = ['--import', `data:text/javascript,${encodeURIComponent(register)}`];

const dir = mkdtempSync(path.join(tmpdir(), 'evalmodel-optional-'));
try {
  const { writeTinyNliModel } = await import('./tiny-nli-model.mjs');
  const folder = writeTinyNliModel(path.join(dir, 'tiny-nli'));
  const probe = `
    const { createEngine } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/index.js'))});
    const out = {};
    try { await import('${PACKAGE}'); out.hidden = false; } catch { out.hidden = true; }
    const engine = await createEngine();
    const res = await engine.evaluate('The parcel arrived broken.', { q: { type: 'noul', instructions: 'Is the customer unhappy?' } });
    out.builtin = res.model;
    await engine.close();
    try { await createEngine({ modelDir: ${JSON.stringify(folder)} }); out.nli = 'loaded'; } catch (error) { out.nli = error.message; }
    console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, [...importFlag, '--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8' });
  let out = {};
  try {
    out = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
  } catch {
    out = {};
  }
  check(`${PACKAGE} is unresolvable in the child process`, out.hidden === true, child.stderr);
  check('the built-in model answers without it', out.builtin === 'evalmodel-1.13.0', child.stderr);
  check(`a model folder fails with what to install`, typeof out.nli === 'string' && out.nli.includes(`npm install ${PACKAGE}`), String(out.nli));

  const cli = spawnSync(process.execPath, [...importFlag, path.join(ROOT, 'dist/src/cli/main.js'), 'ask', 'The parcel arrived broken.', '--noul', 'Is the customer unhappy?', '--json'], { cwd: ROOT, encoding: 'utf8' });
  check('evalmodel ask answers without it', cli.status === 0 && JSON.parse(cli.stdout || '{}').model === 'evalmodel-1.13.0', cli.stderr);
  const cliNli = spawnSync(process.execPath, [...importFlag, path.join(ROOT, 'dist/src/cli/main.js'), 'ask', 'x', '--noul', 'y?', '--model', folder], { cwd: ROOT, encoding: 'utf8' });
  check('evalmodel ask --model <folder> exits 1 naming the package', cliNli.status === 1 && cliNli.stderr.includes(`npm install ${PACKAGE}`), cliNli.stderr);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(`check-without-transformers: ${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 ? 1 : 0;
