/**
 * End-to-end test of the documentation site in real headless Chromium (Debian's `chromium`,
 * driven by playwright-core; no browser is downloaded): the site builds with its one command,
 * is served by its one command, every page loads without console errors, and the playground,
 * which runs the engine in the page, gives the same answers as the Node engine.
 *
 * Skips with a message when /usr/bin/chromium is absent (CI installs it: see .ci/run).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createEngine } from '../src/index.js';
import type { Engine, SystemOneResponse } from '../src/index.js';
import { CHROMIUM, met } from './prerequisites.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// When Chromium is absent, test/report-skips.ts says so before the run (one line, with the reason).
const HAS_CHROMIUM = met('site');
const SCREENSHOT = path.join(ROOT, '.artifacts', 'playground.png');
const TOLERANCE = 1e-4;

/** Starts `node site/serve.mjs` on a free port and resolves to its base URL. */
function startServer(root: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'site/serve.mjs'), '--root', root, '--port', '0'], { cwd: ROOT });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`docs:serve did not start: ${out}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /at (http:\/\/\S+?)\/? /.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`docs:serve exited ${code}: ${out}`)));
  });
}

/** Records console errors, uncaught page errors and failed requests of a page. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console.error: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    // Chromium aborts a page's still-loading requests (typically the favicon) when the test
    // navigates on; that is the browser's doing, not a broken asset. Any other failure counts,
    // and a missing asset still shows up as an HTTP status below.
    if (reason === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.url()} ${reason}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}

function expectClose(actual: number, expected: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: browser ${actual} vs node ${expected}`).toBeLessThanOrEqual(TOLERANCE);
}

describe.skipIf(!HAS_CHROMIUM)('documentation site in headless Chromium', () => {
  let out: string;
  let profile: string;
  let server: { url: string; child: ChildProcess };
  let context: BrowserContext;
  let engine: Engine;

  beforeAll(async () => {
    out = await mkdtemp(path.join(tmpdir(), 'evalmodel-site-'));
    // The same script as `npm run docs:build`, into a folder of our own.
    const build = spawnSync(process.execPath, [path.join(ROOT, 'site/build.mjs'), '--out', out], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`docs:build failed:\n${build.stdout}\n${build.stderr}`);
    server = await startServer(out);
    profile = await mkdtemp(path.join(tmpdir(), 'evalmodel-chromium-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 900 },
    });
    engine = await createEngine({ backend: 'wasm' });
  }, 600_000);

  afterAll(async () => {
    await context?.close();
    server?.child.kill();
    await engine?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('builds every page, the playground bundle, the model files and the API reference', async () => {
    const files = await readdir(out);
    for (const page of ['index.html', 'getting-started.html', 'questions.html', 'instructions.html', 'probabilities.html', 'performance.html', 'cli.html', 'http.html', 'canonical-form.html', 'limits.html', 'model-card.html', 'playground.html', 'playground.js']) {
      expect(files, page).toContain(page);
    }
    const model = await readdir(path.join(out, 'playground/model'));
    expect(model).toEqual(expect.arrayContaining(['model.json', 'vocab.json', 'manifest.json', 'group1-shard1of7', 'group1-shard7of7', 'wasm']));
    expect(await readdir(path.join(out, 'api'))).toContain('index.html');
  });

  it('serves files with their types and nothing outside its folder', async () => {
    const wasm = await fetch(`${server.url}/playground/model/wasm/tfjs-backend-wasm-simd.wasm`, { method: 'HEAD' });
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    for (const evil of ['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json']) {
      const res = await fetch(`${server.url}${evil}`);
      expect([403, 404], evil).toContain(res.status);
    }
    expect((await fetch(`${server.url}/nope.html`)).status).toBe(404);
  });

  it('loads every page without console errors', async () => {
    const pages = (await readdir(out)).filter((f) => f.endsWith('.html') && f !== 'playground.html');
    pages.push('api/index.html');
    // A sample of the API reference's own pages, one from each of its folders.
    for (const dir of await readdir(path.join(out, 'api'), { withFileTypes: true })) {
      if (!dir.isDirectory() || dir.name === 'assets') continue;
      const first = (await readdir(path.join(out, 'api', dir.name))).find((f) => f.endsWith('.html'));
      if (first) pages.push(`api/${dir.name}/${first}`);
    }
    expect(pages.length).toBeGreaterThan(12);
    const page = await context.newPage();
    const problems = watch(page);
    for (const name of pages) {
      const before = problems.length;
      const response = await page.goto(`${server.url}/${name}`, { waitUntil: 'load' });
      expect(response?.status(), name).toBe(200);
      expect(await page.locator('h1').count(), `${name} has a heading`).toBeGreaterThan(0);
      expect(problems.slice(before), name).toEqual([]);
    }
    await page.close();
  }, 120_000);

  it('puts the content first on a 390 px screen, without sideways scrolling; screenshots of home and playground', async () => {
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    for (const width of [1280, 390]) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 844 });
      for (const name of ['index.html', 'playground.html']) {
        await page.goto(`${server.url}/${name}`, { waitUntil: 'load' });
        if (name === 'playground.html') await page.waitForSelector('#status[data-state="ready"]', { timeout: 120_000 });
        const main = (await page.locator('main').boundingBox())!;
        const nav = (await page.locator('nav.side').boundingBox())!;
        if (width === 390) {
          // The page's heading is on the first screen; the navigation follows the content.
          expect(main.y, name).toBeLessThan(nav.y);
          expect((await page.locator('main h1').boundingBox())!.y, name).toBeLessThan(844);
          expect(await page.locator('.menu-link').isVisible(), name).toBe(true);
        } else {
          expect(nav.x, name).toBeLessThan(main.x);
          expect(await page.locator('.menu-link').isVisible(), name).toBe(false);
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: path.join(path.dirname(SCREENSHOT), `${name.replace('.html', '')}-${width}.png`), fullPage: true });
      }
      await page.close();
    }
  }, 300_000);

  it('sends choice option descriptions and noul criteria from the playground, with the answers of the Node engine', async () => {
    const page = await context.newPage();
    const problems = watch(page);
    await page.goto(`${server.url}/playground.html`, { waitUntil: 'load' });
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 120_000 });
    const criteria = page.locator('.pg-criteria');
    await expect.poll(() => criteria.count()).toBe(3);
    await criteria.nth(0).fill('true: asks for their money back, false: no refund wanted');
    await criteria.nth(1).fill('shipping: delivery delays, damaged parcels\nbilling: payments and refunds\ntechnical');
    await page.click('#evaluate');
    await page.waitForFunction(() => (document.getElementById('response-json')?.textContent ?? '').includes('"answers"'), null, { timeout: 60_000 });
    const request = JSON.parse((await page.textContent('#request-json')) ?? '') as { questions: Record<string, { type: string; criteria?: unknown }> };
    const [noul, choice] = Object.values(request.questions);
    expect(noul).toMatchObject({ type: 'noul', criteria: { true: 'asks for their money back', false: 'no refund wanted' } });
    expect(choice).toMatchObject({ type: 'choice', criteria: { shipping: 'delivery delays, damaged parcels', billing: 'payments and refunds', technical: null } });
    const browser = JSON.parse((await page.textContent('#response-json')) ?? '') as SystemOneResponse;
    const node = await engine.evaluate(request);
    for (const [id, expected] of Object.entries(node.answers)) {
      const actual = browser.answers[id]!;
      if (expected.type === 'noul' && actual.type === 'noul') expectClose(actual.noul, expected.noul, `${id} noul`);
      if (expected.type === 'choice' && actual.type === 'choice') {
        expect(actual.choice).toBe(expected.choice);
        for (const [k, p] of Object.entries(expected.probabilities)) expectClose(actual.probabilities[k]!, p, `${id} p(${k})`);
      }
    }
    expect(problems).toEqual([]);
    await page.close();
  }, 300_000);

  it('answers noul, choice and score questions in the page as the Node engine does', async () => {
    const page = await context.newPage();
    const problems = watch(page);
    await page.goto(`${server.url}/playground.html`, { waitUntil: 'load' });
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 120_000 });
    const status = await page.textContent('#status');
    expect(status).toMatch(/Ready · backend (wasm|cpu) · products (evalmodel-gemm|tfjs)/);
    // Our WebAssembly matrix kernel runs in the browser too, wherever the wasm backend does.
    if (status?.includes('backend wasm')) expect(status).toContain('products evalmodel-gemm');

    await page.fill('#state', 'My new blender stopped working after two days and the shop refuses to take it back. I want a refund.');
    const instructions = page.locator('.pg-instructions');
    const criteria = page.locator('.pg-criteria');
    await expect.poll(() => instructions.count()).toBe(3);
    await page.locator('.pg-type').nth(0).selectOption('noul');
    await instructions.nth(0).fill('Does the customer want their money back?');
    await page.locator('.pg-type').nth(1).selectOption('choice');
    await instructions.nth(1).fill('Which department should answer?');
    await criteria.nth(1).fill('returns and refunds, technical support, sales');
    await page.locator('.pg-type').nth(2).selectOption('score');
    await instructions.nth(2).fill('How frustrated is the customer?');
    await criteria.nth(2).fill('not at all, a little, quite, very');
    await page.click('#evaluate');
    await page.waitForFunction(() => (document.getElementById('response-json')?.textContent ?? '').includes('"answers"'), null, { timeout: 60_000 });

    const request = JSON.parse((await page.textContent('#request-json')) ?? '') as Record<string, unknown>;
    const browser = JSON.parse((await page.textContent('#response-json')) ?? '') as SystemOneResponse;
    expect(Object.keys(request.questions as object)).toEqual([
      'Does the customer want their money back?',
      'Which department should answer?',
      'How frustrated is the customer?',
    ]);
    const node = await engine.evaluate(request);

    expect(browser.model).toBe(node.model);
    expect(browser.usage).toEqual(node.usage);
    expect(Object.keys(browser.answers)).toEqual(Object.keys(node.answers));
    for (const [id, expected] of Object.entries(node.answers)) {
      const actual = browser.answers[id]!;
      expect(actual.type).toBe(expected.type);
      if (expected.type === 'noul' && actual.type === 'noul') expectClose(actual.noul, expected.noul, `${id} noul`);
      if (expected.type === 'choice' && actual.type === 'choice') {
        expect(actual.choice).toBe(expected.choice);
        expect(Object.keys(actual.probabilities)).toEqual(['returns and refunds', 'technical support', 'sales']);
        for (const [k, p] of Object.entries(expected.probabilities)) expectClose(actual.probabilities[k]!, p, `${id} p(${k})`);
        expectClose(actual.confidence, expected.confidence, `${id} confidence`);
      }
      if (expected.type === 'score' && actual.type === 'score') {
        expectClose(actual.score, expected.score, `${id} score`);
        expect(actual.legend).toEqual(expected.legend);
        for (const [k, p] of Object.entries(expected.probabilities)) expectClose(actual.probabilities[k]!, p, `${id} p(${k})`);
        expectClose(actual.confidence, expected.confidence, `${id} confidence`);
      }
    }

    // The answers are drawn as bars: 2 for the noul, 3 options, 4 levels.
    expect(await page.locator('.pg-answer').count()).toBe(3);
    expect(await page.locator('.pg-bar').count()).toBe(9);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // A request the validator rejects is shown as a 422 with each location.
    await criteria.nth(2).fill('l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10');
    await page.click('#evaluate');
    await page.waitForSelector('.pg-error');
    expect(await page.textContent('.pg-error')).toContain('422');
    expect(await page.textContent('.pg-error')).toContain('body.questions.How frustrated is the customer?.score.criteria');
    expect(problems).toEqual([]);
    await page.close();
  }, 300_000);
});
