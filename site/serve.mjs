#!/usr/bin/env node
// @ts-check
/**
 * `npm run docs:serve`: a small static file server for the built documentation site
 * (site-dist/), on node:http. GET and HEAD only, paths confined to the root folder,
 * `index.html` for folders, content types for what the site holds (wasm included, which the
 * playground's tfjs backend needs to be served as application/wasm).
 *
 *   node site/serve.mjs [--port 8080] [--host 127.0.0.1] [--root site-dist]
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Content types by file extension. */
export const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/**
 * Creates (does not start) a server for the files under `root`.
 * @param {string} root
 * @returns {http.Server}
 */
export function createStaticServer(root) {
  const base = path.resolve(root);
  return http.createServer(async (req, res) => {
    const send = (/** @type {number} */ status, /** @type {string} */ text) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(405, 'method not allowed\n');
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      return send(400, 'bad path\n');
    }
    let file = path.join(base, pathname);
    if (file !== base && !file.startsWith(base + path.sep)) return send(403, 'forbidden\n');
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        if (!pathname.endsWith('/')) {
          res.writeHead(301, { location: `${pathname}/` });
          return res.end();
        }
        file = path.join(file, 'index.html');
        info = await stat(file);
      }
      const type = TYPES[/** @type {keyof typeof TYPES} */ (path.extname(file).toLowerCase())] ?? 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'content-length': info.size, 'cache-control': 'no-cache' });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).on('error', () => res.destroy()).pipe(res);
    } catch {
      send(404, `not found: ${pathname}\n`);
    }
  });
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '8080' }, host: { type: 'string', default: '127.0.0.1' }, root: { type: 'string' } },
  });
  const root = values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'site-dist');
  try {
    await stat(path.join(root, 'index.html'));
  } catch {
    console.error(`docs:serve: ${root}/index.html not found; run npm run docs:build first`);
    process.exit(1);
  }
  const server = createStaticServer(root);
  server.listen(Number(values.port), values.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : values.port;
    console.log(`Serving ${path.relative(process.cwd(), root) || '.'} at http://${values.host}:${port}/ (Ctrl-C to stop)`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
