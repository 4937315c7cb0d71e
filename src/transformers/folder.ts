/**
 * A model folder in the transformers.js layout as a registry entry: what `--model-dir`,
 * `evalmodel ask --model <folder>` and `createEngine({ modelDir })` add to the registry.
 * Reads only small JSON files and file dates; never loads the model.
 * @module
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TransformersModelEntry } from '../registry/index.js';

/** Versioned id of a model folder without an `evalmodel.json`: 0.x, not a release of ours. */
export const DEFAULT_FOLDER_ID = 'evalmodel-0.1.0';
/** Alias of a model folder without an `evalmodel.json`. */
export const DEFAULT_FOLDER_ALIAS = 'evalmodel-nli';

/** The files a folder must hold (one of the two ONNX files). */
export const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
export const ONNX_FILES = { plain: 'onnx/model.onnx', quantized: 'onnx/model_quantized.onnx' } as const;

/**
 * Optional `evalmodel.json` in the folder: the id, alias, listing text and NLI options, so that
 * a folder carries its own registry entry.
 */
export interface FolderSettings extends Partial<Omit<TransformersModelEntry, 'kind' | 'path' | 'hub'>> {
  id?: string;
  alias?: string;
}

/** A model folder as the registry sees it. */
export interface DescribedFolder {
  id: string;
  alias: string;
  entry: TransformersModelEntry;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read '${file}': ${(error as Error).message}`);
  }
}

/** Throws naming every missing file, so that a wrong folder fails before any loading. */
export function checkModelFolder(dir: string, quantized?: boolean): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`model folder '${dir}' does not exist or is not a folder`);
  const missing: string[] = REQUIRED_FILES.filter((f) => !existsSync(path.join(dir, f)));
  const onnx = quantized === undefined ? [ONNX_FILES.quantized, ONNX_FILES.plain] : [quantized ? ONNX_FILES.quantized : ONNX_FILES.plain];
  if (!onnx.some((f) => existsSync(path.join(dir, f)))) missing.push(onnx.join(' or '));
  if (missing.length > 0) {
    throw new Error(`model folder '${dir}' is not in the transformers.js layout: missing ${missing.join(', ')}`);
  }
}

/** Whether to run the quantized file: as configured, else whenever the folder has it. */
export function folderQuantized(dir: string, configured: boolean | undefined): boolean {
  return configured ?? existsSync(path.join(dir, ONNX_FILES.quantized));
}

/** The registry entry of a model folder (its `evalmodel.json`, else defaults). */
export function describeModelFolder(folder: string): DescribedFolder {
  const dir = path.resolve(folder);
  checkModelFolder(dir);
  const settingsFile = path.join(dir, 'evalmodel.json');
  const settings = (existsSync(settingsFile) ? readJson(settingsFile) : {}) as FolderSettings;
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) throw new Error(`'${settingsFile}' must hold a JSON object`);
  const config = readJson(path.join(dir, 'config.json')) as { model_type?: unknown; _name_or_path?: unknown };
  const { id = DEFAULT_FOLDER_ID, alias = DEFAULT_FOLDER_ALIAS, ...options } = settings;
  const name = typeof config._name_or_path === 'string' && config._name_or_path !== '' ? config._name_or_path : path.basename(dir);
  const type = typeof config.model_type === 'string' ? `${config.model_type} ` : '';
  return {
    id,
    alias,
    entry: {
      description: `Zero-shot NLI cross-encoder ${name} (${type}ONNX, run by transformers.js) from a local model folder.`,
      // The folder's date: when its config.json was written.
      release_date: statSync(path.join(dir, 'config.json')).mtime.toISOString().slice(0, 10),
      ...options,
      kind: 'transformers-nli',
      path: dir,
    },
  };
}
