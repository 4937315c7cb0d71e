/**
 * The package as npm ships it: what `npm pack` puts in the tarball, and both module systems
 * through the package's own name (`require('evalmodel')` and `import('evalmodel')` in child
 * processes, resolved by the exports map like any consumer's). The full install from a tarball
 * and from a git URL into empty projects is scripts/check-install.mjs (run by CI: it needs the
 * npm registry or a warm cache, and minutes).
 *
 * Needs dist/ (built by `npm install`'s prepare script or `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  files: string[];
  exports: Record<string, unknown>;
  license: string;
};

let dir: string;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/src/index.js'))) throw new Error('dist/ is not built: run npm run build');
  // Inside the package folder, so that its own name resolves through its exports map.
  await mkdir(path.join(ROOT, '.artifacts'), { recursive: true });
  dir = await mkdtemp(path.join(ROOT, '.artifacts', 'package-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function node(file: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const REQUEST = {
  model: 'evalmodel-latest',
  state: 'The parcel arrived two weeks late and the box was crushed. I want my money back.',
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    team: { type: 'choice', instructions: 'Who handles this?', criteria: { shipping: null, billing: 'Payments and refunds' } },
  },
};

describe('npm pack', () => {
  it('ships the built library, the CommonJS entry, the weights, docs and legal files, and no sources or tests', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'dist/src/engine/worker.js', 'dist/src/server/index.js', 'cjs/index.cjs', 'cjs/index.d.cts', 'cjs/server.cjs', 'weights/manifest.json', 'LICENSE', 'CHANGELOG.md', 'README.md', 'docs/http.md']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^(src|test|bench|site)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
    // Source maps would point at src/*.ts, which is not shipped.
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('builds on install from source (prepare), and says so in its licence', () => {
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.license).toBe('Apache-2.0');
    const licence = readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
    expect(licence).toContain('Apache License');
    expect(licence).toContain('Version 2.0, January 2004');
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
  });
});

describe('both module systems, through the package name', () => {
  it("require('evalmodel') evaluates and gives the same answers as import('evalmodel')", async () => {
    await writeFile(
      path.join(dir, 'cjs.cjs'),
      `const evalmodel = require('evalmodel');
const { serve } = require('evalmodel/server');
(async () => {
  const engine = await evalmodel.createEngine();
  const res = await engine.evaluate(${JSON.stringify(REQUEST)});
  await engine.close();
  const api = await evalmodel.load();
  let caught = null;
  try { await evalmodel.evaluate({ state: 'x' }); } catch (e) { caught = e; }
  console.log(JSON.stringify({ res, serve: typeof serve, validation: caught instanceof api.RequestValidationError, models: (await evalmodel.listModels()).models.length }));
  await (await evalmodel.defaultEngine()).close();
})().catch((e) => { console.error(e); process.exit(1); });
`,
    );
    await writeFile(
      path.join(dir, 'esm.mjs'),
      `import { createEngine } from 'evalmodel';
const engine = await createEngine();
console.log(JSON.stringify(await engine.evaluate(${JSON.stringify(REQUEST)})));
await engine.close();
`,
    );
    const cjs = node('cjs.cjs');
    expect(cjs.status, cjs.stderr).toBe(0);
    expect(cjs.stderr).toBe('');
    const out = JSON.parse(cjs.stdout) as { res: unknown; serve: string; validation: boolean; models: number };
    expect(out.serve).toBe('function');
    expect(out.validation).toBe(true);
    expect(out.models).toBeGreaterThan(0);
    const esm = node('esm.mjs');
    expect(esm.status, esm.stderr).toBe(0);
    expect(out.res).toEqual(JSON.parse(esm.stdout));
  });

  it('the CommonJS entry exposes the async doors it documents', () => {
    const r = spawnSync(process.execPath, ['-e', "const m = require('./cjs/index.cjs'); console.log(Object.keys(m).sort().join(','))"], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('createEngine,createEnginePool,defaultEngine,evaluate,listModels,load');
  });
});
