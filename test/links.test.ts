/**
 * Every link of the documentation resolves: the built site (pages, API reference, playground;
 * fragments included) and the repository's Markdown (README.md, CHANGELOG.md, docs/*.md), with
 * no link leaving the repository. Also the site defects that once slipped through: doubled page
 * titles, file names turned into web links by the API reference's Markdown, and the navigation
 * before the content (narrow screens show the DOM order).
 *
 * Builds the site (typedoc included) into a temporary folder: no browser needed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMarkdown, checkSite, describe as describeReport } from '../site/links.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let out: string;

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'evalmodel-links-'));
  const build = spawnSync(process.execPath, [path.join(ROOT, 'site/build.mjs'), '--out', out, '--quiet'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`docs:build failed:\n${build.stdout}\n${build.stderr}`);
}, 300_000);

afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

describe('links', () => {
  it('every link of the built site resolves, fragments included', () => {
    const report = checkSite(out);
    console.log(describeReport('site', report));
    expect(report.files).toBeGreaterThan(40);
    expect(report.checked).toBeGreaterThan(1000);
    expect(report.broken).toEqual([]);
  });

  it('every link of README.md, CHANGELOG.md and docs/*.md resolves inside the repository', () => {
    const report = checkMarkdown(ROOT);
    console.log(describeReport('Markdown', report));
    expect(report.checked).toBeGreaterThan(20);
    expect(report.broken).toEqual([]);
  });
});

describe('site pages', () => {
  it('titles name the page once', async () => {
    const pages = (await readdir(out)).filter((f) => f.endsWith('.html'));
    for (const page of pages) {
      const title = /<title>([^<]*)<\/title>/.exec(await readFile(path.join(out, page), 'utf8'))?.[1] ?? '';
      expect(title, page).not.toMatch(/evalmodel · evalmodel/);
      expect(title, page).toMatch(/\S/);
    }
    expect(/<title>([^<]*)/.exec(await readFile(path.join(out, 'index.html'), 'utf8'))?.[1]).toBe('evalmodel documentation');
  });

  it('the API reference turns no file name into a web link', async () => {
    const text = await readFile(path.join(out, 'api/variables/MAX_CHOICE_OPTIONS.html'), 'utf8');
    expect(text).not.toMatch(/href="https?:\/\/[A-Za-z-]+\.(md|ts|js|json)"/);
    for (const dir of ['functions', 'classes', 'interfaces', 'variables', 'types']) {
      for (const f of await readdir(path.join(out, 'api', dir)).catch(() => [] as string[])) {
        expect(await readFile(path.join(out, 'api', dir, f), 'utf8'), `api/${dir}/${f}`).not.toMatch(/href="https?:\/\/[A-Za-z-]+\.(md|ts)"/);
      }
    }
  });

  it('puts the content before the navigation, with a link to it from the header', async () => {
    const html = await readFile(path.join(out, 'getting-started.html'), 'utf8');
    expect(html.indexOf('<main')).toBeGreaterThan(0);
    expect(html.indexOf('<main')).toBeLessThan(html.indexOf('<nav'));
    expect(html).toContain('href="#site-nav"');
    expect(html).toContain('id="site-nav"');
  });
});
