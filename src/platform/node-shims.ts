/**
 * Browser stand-ins for the `node:*` modules that the engine's Node loaders import. The site's
 * esbuild step maps every `node:*` import to this module, so no Node built-in reaches the
 * bundle. In the page the loaders read nothing from disk (the browser entry hands every file
 * over first), so file functions here throw a clear error if they are ever reached. The one
 * thing resolved for real is the location of the tfjs WebAssembly binaries, which the backend
 * registry asks `require.resolve` for.
 * @module
 */

let wasmBase = './wasm/';

/** Sets the URL folder the `tfjs-backend-wasm*.wasm` files are served from. */
export function setWasmBase(url: string): void {
  wasmBase = url.endsWith('/') ? url : `${url}/`;
}

function unavailable(name: string): never {
  throw new Error(`${name} is not available in the browser; hand the engine its files through the loading seams`);
}

const WASM_PACKAGE = '@tensorflow/tfjs-backend-wasm/dist/';

/** `node:module` createRequire: only `require.resolve` of the tfjs wasm binaries works. */
export function createRequire(_from: string | URL): { resolve(specifier: string): string } {
  const require = (specifier: string): never => unavailable(`require('${specifier}')`);
  require.resolve = (specifier: string): string => {
    if (specifier.startsWith(WASM_PACKAGE)) return wasmBase + specifier.slice(WASM_PACKAGE.length);
    return unavailable(`require.resolve('${specifier}')`);
  };
  return require;
}

/** `node:path` separator: POSIX-style path helpers, enough for URL-like paths. */
export const sep = '/';
/** `node:path` dirname of a slash-separated path or URL. */
export function dirname(p: string): string {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i < 0 ? '.' : i === 0 ? '/' : p.slice(0, i);
}
/** `node:path` join: slash-joined, repeated slashes folded (not those of `scheme://`). */
export function join(...parts: string[]): string {
  return parts.filter((s) => s.length > 0).join('/').replace(/(?<!:)\/{2,}/g, '/');
}
/** `node:path` resolve: the same as {@link join}; there is no working directory in a page. */
export function resolve(...parts: string[]): string {
  return join(...parts);
}

/** `node:url` fileURLToPath: the URL's path. */
export function fileURLToPath(url: string | URL): string {
  return new URL(url).pathname;
}

/** `node:fs/promises` readFile: always rejects; there is no file system in a page. */
export function readFile(path: string): Promise<never> {
  return Promise.reject(new Error(`readFile('${path}') is not available in the browser; hand the engine its files through the loading seams`));
}
/** `node:fs` readFileSync: always throws; there is no file system in a page. */
export function readFileSync(path: string): never {
  return unavailable(`readFileSync('${path}')`);
}

/** Default export for `import path from 'node:path'` and the like. */
export default { sep, dirname, join, resolve, fileURLToPath, readFile, readFileSync, createRequire };
