/**
 * Where a model's reader comes from: its weight manifest and file in the weights folder (read
 * once per process), or, in a browser, handed over by the page (`provideReader`).
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadReader, type LoadedReader } from './logits.js';
import { decodeParams, type ReaderManifest } from './weights.js';

const loaded = new Map<string, LoadedReader>();
const provided = new Map<string, { manifest: ReaderManifest; bytes: Uint8Array }>();

/**
 * Browser seam: a page without a file system fetches the reader's manifest and weight file
 * itself and hands them over under the name the registry uses (`heads.reader`); checked here.
 */
export function provideReader(manifestName: string, manifest: ReaderManifest, bytes: Uint8Array): void {
  decodeParams(manifest, bytes);
  // Tensors are made at first use, once the engine has chosen its tfjs backend.
  provided.set(manifestName, { manifest, bytes });
  loaded.delete(`provided:${manifestName}`);
}

/** The reader named `manifestName` in the weights folder (loaded once per process). */
export function readerFor(manifestName: string, weightsDir: string): LoadedReader {
  const given = provided.get(manifestName);
  const key = given ? `provided:${manifestName}` : path.resolve(weightsDir, manifestName);
  let reader = loaded.get(key);
  if (!reader) {
    if (given) reader = loadReader(given.manifest, given.bytes);
    else {
      const manifest = JSON.parse(readFileSync(key, 'utf8')) as ReaderManifest;
      reader = loadReader(manifest, readFileSync(path.resolve(path.dirname(key), manifest.weights)));
    }
    loaded.set(key, reader);
  }
  return reader;
}
