#!/usr/bin/env node
/**
 * Installs evalmodel the way a user would, into empty projects, and uses it there:
 *
 *   - from a fresh `npm pack` tarball of this checkout (what the registry would serve);
 *   - from a git URL (`git+file://<this repository>#<HEAD>`), which makes npm clone the
 *     repository, install its dev dependencies and run its `prepare` build: the path of
 *     `npm install git+https://...` (only committed files take part in it).
 *
 * In each project it `import`s and `require`s the package and runs one evaluation each way,
 * imports and requires `evalmodel/server`, runs the installed `evalmodel` command, and fails
 * when anything a library user would see on stderr comes from a third party (tfjs' banners).
 *
 * Usage: node scripts/check-install.mjs [--only tarball|git] [--keep]
 * Run by .ci/run; needs npm and the npm registry (or a warm npm cache), and git for --only git.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { only: { type: 'string' }, keep: { type: 'boolean' } } });
if (values.only && !['tarball', 'git'].includes(values.only)) throw new Error(`--only takes tarball or git, not '${values.only}'`);
const work = mkdtempSync(path.join(os.tmpdir(), 'evalmodel-install-'));
const npmFlags = ['--no-audit', '--no-fund', '--loglevel=error'];

/** Runs a command, echoing it; throws with its output when it fails. */
function sh(cmd, args, cwd, env = {}) {
  process.stdout.write(`$ (cd ${path.relative(work, cwd) || cwd}) ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  }
  return { stdout: r.stdout, stderr: r.stderr };
}

/** Fails when stderr holds anything but the lines we expect to be there. */
function assertQuiet(what, stderr) {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  if (lines.length > 0) throw new Error(`${what} wrote to stderr (a library user would see this):\n${stderr}`);
}

const QUESTIONS = `{
  refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
  team: { type: 'choice', instructions: 'Who handles this?', criteria: { shipping: 'Deliveries', billing: 'Payments and refunds' } },
}`;
const STATE = `'The parcel arrived two weeks late and the box was crushed. I want my money back.'`;

const ESM = `import { createEngine, RequestValidationError } from 'evalmodel';
import { serve } from 'evalmodel/server';
const engine = await createEngine();
const res = await engine.evaluate({ model: 'evalmodel-latest', state: ${STATE}, questions: ${QUESTIONS} });
await engine.close();
if (typeof res.answers.refund.noul !== 'number' || !['shipping', 'billing'].includes(res.answers.team.choice)) throw new Error('bad answer ' + JSON.stringify(res));
if (typeof RequestValidationError !== 'function' || typeof serve !== 'function') throw new Error('missing exports');
console.log('import ok:', res.model, JSON.stringify(res.answers.team.probabilities));
`;

const CJS = `const evalmodel = require('evalmodel');
const server = require('evalmodel/server');
(async () => {
  const res = await evalmodel.evaluate(${STATE}, ${QUESTIONS});
  const api = await evalmodel.load();
  if (typeof api.RequestValidationError !== 'function' || typeof (await server.load()).serve !== 'function') throw new Error('missing exports');
  if (typeof res.answers.refund.noul !== 'number') throw new Error('bad answer ' + JSON.stringify(res));
  const engine = await api.defaultEngine();
  await engine.close();
  console.log('require ok:', res.model, JSON.stringify(res.answers.team.probabilities));
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Installs `spec` into a new empty project and uses the package there. */
function checkInstall(name, spec) {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true }, null, 2));
  // The line the README asks users to add for the native encoder (onnxruntime-node's install
  // script otherwise tries to download a CUDA add-on, and npm leaves the optional package out).
  writeFileSync(path.join(dir, '.npmrc'), 'onnxruntime-node-install-cuda=skip\n');
  const started = Date.now();
  sh('npm', ['install', ...npmFlags, spec], dir);
  process.stdout.write(`  installed in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  writeFileSync(path.join(dir, 'esm.mjs'), ESM);
  writeFileSync(path.join(dir, 'cjs.cjs'), CJS);
  for (const file of ['esm.mjs', 'cjs.cjs']) {
    const { stdout, stderr } = sh(process.execPath, [file], dir);
    process.stdout.write('  ' + stdout);
    assertQuiet(`node ${file}`, stderr);
  }
  const bin = path.join(dir, 'node_modules', '.bin', 'evalmodel');
  const ask = sh(bin, ['ask', 'My package never arrived.', '--noul', 'Is there a delivery problem?'], dir);
  assertQuiet('evalmodel ask', ask.stderr);
  if (!/p\(yes\)/.test(ask.stdout)) throw new Error(`evalmodel ask printed no answer:\n${ask.stdout}`);
  if (!/backend onnxruntime-node ·/.test(ask.stdout)) throw new Error(`the installed package does not run the encoder on onnxruntime-node:\n${ask.stdout}`);
  const models = sh(bin, ['models'], dir);
  if (!models.stdout.includes('evalmodel-latest')) throw new Error(`evalmodel models:\n${models.stdout}`);
  // The benchmarks are not shipped: the command must say so and where they are, not fail obscurely.
  const bench = spawnSync(bin, ['bench'], { cwd: dir, encoding: 'utf8' });
  if (bench.status !== 1 || !/not part of the installed package/.test(bench.stderr)) {
    throw new Error(`evalmodel bench from an installed package: status ${bench.status}\n${bench.stderr}`);
  }
  process.stdout.write(`  evalmodel ask, models and bench behave as documented\n`);
}

let failed = false;
try {
  if (values.only !== 'git') {
    process.stdout.write('== from a fresh npm pack tarball\n');
    sh('npm', ['pack', '--pack-destination', work, '--loglevel=error'], root);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack wrote no tarball');
    checkInstall('tarball', path.join(work, tarball));
  }
  if (values.only !== 'tarball') {
    process.stdout.write('== from a git URL\n');
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim();
    if (dirty) process.stdout.write(`  note: uncommitted changes are not part of a git install; installing commit ${sha.slice(0, 12)}\n`);
    checkInstall('git', `git+file://${root}#${sha}`);
  }
  process.stdout.write('check-install: every install path works\n');
} catch (error) {
  failed = true;
  process.stderr.write(`check-install: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  if (values.keep) process.stdout.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
