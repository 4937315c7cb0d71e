#!/usr/bin/env node
// @ts-check
/**
 * Link checker for the built documentation site and for the repository's Markdown (README.md,
 * CHANGELOG.md, docs/*.md). No network: a link to another site (http:, https:, mailto:) is
 * counted, not fetched; every other link must resolve to a file, and a `#fragment` to an id (in
 * HTML) or a heading (in Markdown) of its target. A Markdown link may not leave the repository
 * (users of a clone or of the package do not have the folders around it).
 *
 *   node site/links.mjs [site-dist]     checks the built site and the Markdown; exit 1 on a broken link
 *
 * test/links.test.ts runs both checks over a fresh build.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { slug } from './render.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @typedef {{ from: string, link: string, why: string }} Broken */
/** @typedef {{ files: number, checked: number, external: number, broken: Broken[] }} Report */

/** @param {string} dir @param {(f: string) => boolean} keep @returns {string[]} */
function walk(dir, keep) {
  /** @type {string[]} */
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(file, keep));
    else if (keep(file)) out.push(file);
  }
  return out;
}

/** @param {string} href */
const isExternal = (href) => /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//');

/** @param {string} text */
function decodeEntities(text) {
  return text.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

/** The ids of an HTML file (cached). @type {Map<string, Set<string>>} */
const htmlIds = new Map();
/** @param {string} file */
function idsOf(file) {
  let ids = htmlIds.get(file);
  if (!ids) {
    const html = readFileSync(file, 'utf8');
    ids = new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((m) => decodeEntities(m[1] ?? '')));
    htmlIds.set(file, ids);
  }
  return ids;
}

/**
 * Checks every href and src of every .html file under `dir`.
 * @param {string} dir
 * @returns {Report}
 */
export function checkSite(dir) {
  const files = walk(dir, (f) => f.endsWith('.html'));
  /** @type {Report} */
  const report = { files: files.length, checked: 0, external: 0, broken: [] };
  for (const file of files) {
    const html = readFileSync(file, 'utf8')
      // Code samples and scripts are not links.
      .replace(/(<script\b[^>]*>)[\s\S]*?<\/script>/gi, '$1</script>')
      .replace(/<pre\b[\s\S]*?<\/pre>/gi, '');
    for (const m of html.matchAll(/\s(href|src)="([^"]*)"/g)) {
      const link = decodeEntities(m[2] ?? '');
      const from = path.relative(dir, file);
      if (link === '' || link.startsWith('data:') || link.startsWith('javascript:')) continue;
      if (isExternal(link)) {
        report.external++;
        continue;
      }
      report.checked++;
      const [target = '', fragment] = link.split('#');
      const clean = decodeURIComponent(target.split('?')[0] ?? '');
      const resolved = clean === '' ? file : path.resolve(path.dirname(file), clean);
      if (!resolved.startsWith(dir + path.sep) && resolved !== dir) {
        report.broken.push({ from, link, why: 'leaves the site' });
        continue;
      }
      const real = existsSync(resolved) && statSync(resolved).isDirectory() ? path.join(resolved, 'index.html') : resolved;
      if (!existsSync(real)) {
        report.broken.push({ from, link, why: 'no such file' });
        continue;
      }
      if (fragment && real.endsWith('.html') && !idsOf(real).has(decodeURIComponent(fragment))) {
        report.broken.push({ from, link, why: `no id '${fragment}' in ${path.relative(dir, real)}` });
      }
    }
  }
  return report;
}

/** Heading anchors of a Markdown file, as the site (and, for plain headings, GitHub) makes them. @param {string} file */
function headingsOf(file) {
  const source = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  /** @type {Map<string, number>} */
  const seen = new Map();
  const ids = new Set();
  for (const m of source.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug((m[1] ?? '').replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/**
 * Checks the links of the repository's Markdown: README.md, CHANGELOG.md and docs/*.md.
 * Links into the built site's own pages (api/..., playground.html) count as the site's.
 * @param {string} [root]
 * @returns {Report}
 */
export function checkMarkdown(root = ROOT) {
  const files = ['README.md', 'CHANGELOG.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
    .map((f) => path.join(root, f))
    .filter((f) => existsSync(f));
  /** @type {Report} */
  const report = { files: files.length, checked: 0, external: 0, broken: [] };
  for (const file of files) {
    const from = path.relative(root, file);
    const source = readFileSync(file, 'utf8')
      .replace(/```[\s\S]*?```/g, '')
      .replace(/`[^`\n]*`/g, '');
    for (const m of source.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const link = m[1] ?? '';
      if (isExternal(link)) {
        report.external++;
        continue;
      }
      report.checked++;
      const [target = '', fragment] = link.split('#');
      const inDocs = path.dirname(file) === path.join(root, 'docs');
      // Pages the site generates, linked from docs/*.md as the site sees them.
      if (inDocs && /^(api\/|playground(\.html)?$)/.test(target)) continue;
      const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      if (!resolved.startsWith(root + path.sep)) {
        report.broken.push({ from, link, why: 'points outside the repository' });
        continue;
      }
      if (!existsSync(resolved)) {
        report.broken.push({ from, link, why: 'no such file' });
        continue;
      }
      if (fragment && resolved.endsWith('.md') && !headingsOf(resolved).has(fragment)) {
        report.broken.push({ from, link, why: `no heading '#${fragment}' in ${path.relative(root, resolved)}` });
      }
    }
  }
  return report;
}

/** @param {string} what @param {Report} r */
export function describe(what, r) {
  const head = `${what}: ${r.checked} links checked in ${r.files} files (${r.external} to other sites, not fetched), ${r.broken.length} broken`;
  return [head, ...r.broken.map((b) => `  ${b.from}: ${b.link} (${b.why})`)].join('\n');
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const site = path.resolve(process.argv[2] ?? path.join(ROOT, 'site-dist'));
  const md = checkMarkdown();
  console.log(describe('Markdown', md));
  let broken = md.broken.length;
  if (existsSync(site)) {
    const built = checkSite(site);
    console.log(describe(`site (${path.relative(process.cwd(), site) || '.'})`, built));
    broken += built.broken.length;
  } else {
    console.log(`site: ${site} is not built (npm run docs:build); not checked`);
  }
  process.exit(broken > 0 ? 1 : 0);
}
