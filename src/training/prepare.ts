/**
 * Step 1 of training: render every training case as the engine does and make sure the frozen
 * encoder's outputs for all texts the heads read (states, instructions, outcome lines) are in
 * the local cache `.cache/encodings/`. Run on its own with `node dist/src/training/prepare.js`.
 * @module
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderQuestion, renderState } from '../canonical/index.js';
import { questionTexts } from '../heads/texts.js';
import { createTokenizer, loadVocabulary } from '../tokenizer/index.js';
import { dataDir, loadCases, type Case } from './data.js';
import { cacheDir, EncodingStore } from './encode-cache.js';

/** Every text the heads read for these cases. */
export function textsOf(cases: readonly Case[]): Set<string> {
  const texts = new Set<string>();
  for (const c of cases) {
    texts.add(renderState(c.state));
    for (const q of Object.values(c.questions)) {
      const t = questionTexts(renderQuestion(q));
      texts.add(t.instructions);
      for (const l of t.lines) texts.add(l);
    }
  }
  texts.delete('');
  return texts;
}

export { cacheDir };

/** Full rendered outcome texts ("instructions + outcome line"), read by the zero-shot term. */
export function outcomeTextsOf(cases: readonly Case[]): Set<string> {
  const texts = new Set<string>();
  for (const c of cases) for (const q of Object.values(c.questions)) for (const o of renderQuestion(q).outcomes) texts.add(o);
  texts.delete('');
  return texts;
}

export async function prepare(cases: readonly Case[], workers = 2, outcomeCases: readonly Case[] = []): Promise<EncodingStore> {
  const dir = cacheDir();
  mkdirSync(dir, { recursive: true });
  // The cache ignores itself, so it never reaches git whatever the root .gitignore says.
  const ignore = path.join(path.dirname(dir), '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
  const store = new EncodingStore(dir);
  const tokenizer = createTokenizer(await loadVocabulary());
  await store.ensure([...textsOf(cases), ...outcomeTextsOf(outcomeCases)], tokenizer, workers);
  return store;
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const cases = loadCases(path.join(dataDir(), 'train'));
  const limit = Number(process.env.PREPARE_LIMIT ?? 0);
  await prepare(limit > 0 ? cases.slice(0, limit) : cases, Number(process.env.TRAIN_WORKERS ?? 2));
}
