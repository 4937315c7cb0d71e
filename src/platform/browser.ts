/**
 * Browser entry of the engine: the same pipeline as in Node (`createEngine`), with the model's
 * files fetched over HTTP instead of read from `node_modules`. The documentation site's
 * playground is built from this module with esbuild (see `site/build.mjs`), which replaces the
 * `node:*` imports of the Node loaders by `./node-shims.ts`; those loaders are never called
 * here because every file is handed over through the loading seams first.
 *
 * @example
 * import { createBrowserEngine } from './platform/browser.js';
 * const engine = await createBrowserEngine({ baseUrl: '/playground/model/' });
 * const res = await engine.evaluate('It broke after a day.', { q: { type: 'noul', instructions: 'Is it a complaint?' } });
 * @module
 */
import { createEngine } from '../engine/engine.js';
import type { BackendName, Engine } from '../engine/contract.js';
import { setEncoderWeightSource, type ModelJson } from '../encoder/weights.js';
import { provideHeads, provideReader, type HeadsManifest, type ReaderManifest } from '../heads/index.js';
import { ModelRegistry, type RegistryManifest } from '../registry/index.js';
import { provideVocabulary } from '../tokenizer/index.js';
import { setWasmBase } from './node-shims.js';

/** Where the page finds the model's files, and how to run it. */
export interface BrowserEngineOptions {
  /**
   * URL of the folder holding `model.json`, its shards, `vocab.json` and `manifest.json`
   * (absolute, or relative to the page).
   */
  baseUrl: string;
  /** URL of the folder holding the `tfjs-backend-wasm*.wasm` files. Default `<baseUrl>wasm/`. */
  wasmUrl?: string;
  /** tfjs backend; default: wasm, falling back to cpu when WebAssembly cannot start. */
  backend?: Exclude<BackendName, 'tensorflow' | 'onnxruntime-node'>;
  /** Called with a short description of each loading step, for a progress line. */
  onProgress?: (step: string) => void;
  /** Byte budget of the state cache (default as in Node). */
  cacheBytes?: number;
}

async function fetchOk(url: URL): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url.href}: ${response.status} ${response.statusText}`);
  return response;
}

/**
 * Fetches the model's files, hands them to the engine's loading seams and creates an engine.
 * One engine per page: tfjs has a single global backend.
 */
export async function createBrowserEngine(options: BrowserEngineOptions): Promise<Engine> {
  const progress = options.onProgress ?? (() => undefined);
  const base = new URL(options.baseUrl, globalThis.location?.href);
  setWasmBase(new URL(options.wasmUrl ?? 'wasm/', base).href);

  progress('Fetching the model manifest and vocabulary');
  const [manifest, vocabulary, modelJson] = await Promise.all([
    fetchOk(new URL('manifest.json', base)).then((r) => r.json() as Promise<RegistryManifest>),
    fetchOk(new URL('vocab.json', base)).then((r) => r.json() as Promise<unknown>),
    fetchOk(new URL('model.json', base)).then((r) => r.json() as Promise<ModelJson>),
  ]);
  ModelRegistry.provideManifest(manifest);
  // Trained heads named by the registry: their manifest and weight file sit beside it.
  const headsFiles = new Set(Object.values(manifest.models).flatMap((m) => (m.kind !== 'transformers-nli' && m.heads.kind === 'late-interaction' ? [m.heads.manifest] : [])));
  await Promise.all(
    [...headsFiles].map(async (name) => {
      const headsManifest = (await fetchOk(new URL(name, base)).then((r) => r.json())) as HeadsManifest;
      const bytes = new Uint8Array(await (await fetchOk(new URL(headsManifest.weights, base))).arrayBuffer());
      provideHeads(name, headsManifest, bytes);
    }),
  );
  // Readers that correct those heads, the same way.
  const readerFiles = new Set(Object.values(manifest.models).flatMap((m) => (m.kind !== 'transformers-nli' && m.heads.kind === 'late-interaction' && m.heads.reader ? [m.heads.reader] : [])));
  await Promise.all(
    [...readerFiles].map(async (name) => {
      const readerManifest = (await fetchOk(new URL(name, base)).then((r) => r.json())) as ReaderManifest;
      const bytes = new Uint8Array(await (await fetchOk(new URL(readerManifest.weights, base))).arrayBuffer());
      provideReader(name, readerManifest, bytes);
    }),
  );
  provideVocabulary(vocabulary, new URL('vocab.json', base).href);
  const shards = modelJson.weightsManifest.flatMap((g) => g.paths).length;
  let fetched = 0;
  setEncoderWeightSource({
    modelJson,
    async readShard(path) {
      const buffer = await (await fetchOk(new URL(path, base))).arrayBuffer();
      progress(`Fetched weight shard ${++fetched} of ${shards}`);
      return buffer;
    },
  });
  progress('Loading the encoder');
  const config: Parameters<typeof createEngine>[0] = {};
  if (options.backend) config.backend = options.backend;
  if (options.cacheBytes !== undefined) config.cacheBytes = options.cacheBytes;
  const engine = await createEngine(config);
  progress(`Ready (backend ${engine.stats().backend})`);
  return engine;
}

export type { Engine } from '../engine/contract.js';
export type * from '../types.js';
export { RequestValidationError, UnknownModelError } from '../errors.js';
