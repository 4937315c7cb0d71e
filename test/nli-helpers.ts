/**
 * Shared by the tests of the `transformers-nli` model kind: whether the optional peer dependency
 * is installed (the tests skip with a message when it is not), and tiny random model folders
 * written by scripts/tiny-nli-model.mjs into a temporary folder. Nothing is downloaded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain ES module script without type declarations
import { writeTinyNliModel } from '../scripts/tiny-nli-model.mjs';

/** Whether `@xenova/transformers` can be imported here. */
export const hasTransformers: boolean = await import('@xenova/transformers' as string).then(
  () => true,
  () => {
    console.warn('@xenova/transformers is not installed: the transformers-nli tests skip (npm install to run them)');
    return false;
  },
);

export interface TinyModelOptions {
  seed?: number;
  maxLength?: number;
  labels?: string[];
  /** Written as the folder's evalmodel.json. */
  settings?: Record<string, unknown>;
}

const folders: string[] = [];

/** A fresh tiny model folder; removed by {@link removeTinyModels}. */
export function tinyModel(options: TinyModelOptions = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'evalmodel-nli-'));
  folders.push(dir);
  const folder = path.join(dir, 'tiny-nli');
  writeTinyNliModel(folder, options);
  if (options.settings) writeFileSync(path.join(folder, 'evalmodel.json'), JSON.stringify(options.settings));
  return folder;
}

export function removeTinyModels(): void {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
}
