// @ts-check
/**
 * HTML of the documentation site: Markdown rendering (heading anchors, links rewritten to built
 * pages), the shared layout and the navigation. Pure functions; site/build.mjs writes the files.
 */
import path from 'node:path';
import { Marked } from 'marked';

/** @param {string} text */
export function escapeHtml(text) {
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

/** `foo.md` -> `foo.html`, `index.md` -> `index.html`. @param {string} file */
export const htmlName = (file) => file.replace(/\.md$/, '.html');

/**
 * A Markdown renderer for one page: heading anchors, links between docs rewritten to the
 * built pages, links into the repository shown as paths (they have no page on the site).
 * @param {Set<string>} built the .md files that become pages
 */
export function markdown(built) {
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
 * A page's <title>: "<heading> · evalmodel", or just "evalmodel documentation" for the page whose
 * heading is the project's name (no "evalmodel · evalmodel").
 * @param {string} title
 */
export function pageTitle(title) {
  return title.trim().toLowerCase() === 'evalmodel' ? 'evalmodel documentation' : `${title} · evalmodel`;
}

/**
 * The shared layout.
 * @param {{ title: string, body: string, current: string, nav: string, version: string, scripts?: string[] }} page
 */
export function layout({ title, body, current, nav, version, scripts = [] }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(pageTitle(title))}</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="style.css">
</head>
<body>
<header class="top"><a class="brand" href="index.html"><img src="favicon.svg" alt="" width="22" height="22"> evalmodel</a><span class="version">v${escapeHtml(version)}</span>
<a class="top-link" href="playground.html">Playground</a><a class="top-link" href="api/index.html">API</a><a class="top-link menu-link" href="#site-nav">Menu</a></header>
<div class="layout">
<main class="content">
${body}
</main>
<nav class="side" id="site-nav" aria-label="Documentation">${nav.replace(`href="${current}"`, `href="${current}" aria-current="page"`)}</nav>
</div>
<footer class="bottom">Built by <code>npm run docs:build</code> from <code>docs/*.md</code> · evalmodel ${escapeHtml(version)} · Apache-2.0</footer>
${scripts.map((s) => `<script type="module" src="${s}"></script>`).join('\n')}
</body>
</html>
`;
}

/** @param {{ section?: string, out: string, nav: string }[]} entries */
export function navigation(entries) {
  /** @type {Map<string, string[]>} */
  const sections = new Map();
  for (const e of entries) {
    const key = e.section ?? 'More';
    sections.set(key, [...(sections.get(key) ?? []), `<li><a href="${e.out}">${escapeHtml(e.nav)}</a></li>`]);
  }
  return [...sections].map(([name, items]) => `<h2>${escapeHtml(name)}</h2><ul>${items.join('')}</ul>`).join('\n');
}
