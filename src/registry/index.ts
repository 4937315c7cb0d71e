/**
 * The model registry: aliases to versioned ids, the listing, and what each model runs on.
 * The registry is data (`weights/manifest.json`), read once; this module only validates and
 * answers questions about it.
 *
 * Browser seam: a page fetches the manifest and hands it to {@link ModelRegistry.provideManifest};
 * `ModelRegistry.load()` then never touches the file system.
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { UnknownModelError } from '../errors.js';
import type { ModelMetadata, ModelMetadataList } from '../types.js';

/** Zero-shot heads: softmax over cosine similarities of the pooled state and outcome texts. */
export interface ZeroShotHeadsSpec {
  kind: 'zero-shot-similarity';
  /** Softmax temperature over cosine similarities, per question type. */
  temperature: { noul: number; choice: number; score: number };
}

/**
 * Trained late-interaction heads (src/heads/late.ts): `manifest` names the heads' weight
 * manifest, relative to the folder of the registry manifest.
 */
export interface LateInteractionHeadsSpec {
  kind: 'late-interaction';
  manifest: string;
  /** The reader's weight manifest (src/heads/reader) that corrects these heads' answers, if any. */
  reader?: string;
}

/** How a model's heads turn encodings into answers. */
export type HeadsSpec = ZeroShotHeadsSpec | LateInteractionHeadsSpec;

/** A built-in model: the encoder package this project runs itself, and its heads. */
export interface BuiltinModelEntry {
  /** Absent or `builtin`: the built-in kind (every entry of `weights/manifest.json`). */
  kind?: 'builtin';
  description: string;
  release_date: string;
  encoder: { package: string; version: string };
  heads: HeadsSpec;
}

/**
 * An NLI (entailment) cross-encoder in the transformers.js layout (`config.json`,
 * `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx` or `onnx/model_quantized.onnx`),
 * run by the optional peer dependency `@xenova/transformers` (src/transformers/).
 */
export interface TransformersModelEntry {
  kind: 'transformers-nli';
  description: string;
  release_date: string;
  /** A local model folder; relative paths are relative to the manifest's folder. */
  path?: string;
  /** A Hugging Face hub id, fetched only when the engine allows remote models (else its cache). */
  hub?: string;
  /** Run `onnx/model_quantized.onnx`. Default: for a folder, whether that file exists; for a hub id, true. */
  quantized?: boolean;
  /** The `id2label` names of entailment and contradiction, when they are not recognisable by name. */
  labels?: { entailment: string; contradiction: string };
  /** Softmax temperature per question type (default 1). */
  temperature?: { noul?: number; choice?: number; score?: number };
  /** Longest premise + hypothesis pair in tokens (default: the tokenizer's, at most 512). */
  maxLength?: number;
  /** Pairs per model run (default 16). */
  batchSize?: number;
}

/** A manifest's model entry, of either kind. */
export type ModelEntry = BuiltinModelEntry | TransformersModelEntry;

/** One versioned model of the built-in kind. */
export type BuiltinModelSpec = BuiltinModelEntry & { id: string };
/** One versioned NLI model; `path`, when given, is absolute. */
export type TransformersModelSpec = TransformersModelEntry & { id: string };
/** One versioned model. */
export type ModelSpec = BuiltinModelSpec | TransformersModelSpec;

/** Whether a model runs on transformers.js rather than the built-in encoder. */
export function isTransformersSpec(spec: ModelSpec): spec is TransformersModelSpec {
  return spec.kind === 'transformers-nli';
}

/** The parsed manifest. */
export interface RegistryManifest {
  aliases: Record<string, string>;
  listed: ModelMetadata[];
  models: Record<string, ModelEntry>;
}

/** Shape of versioned ids: `evalmodel-<major>.<minor>.<patch>`. */
export const VERSIONED_ID = /^evalmodel-(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** Where the default manifest lives, both from src/ and from the compiled dist/src/. */
export function defaultManifestPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromSrc = path.resolve(here, '../../weights/manifest.json');
  const fromDist = path.resolve(here, '../../../weights/manifest.json');
  try {
    readFileSync(fromSrc);
    return fromSrc;
  } catch {
    return fromDist;
  }
}

/** Checks one NLI entry; throws with a precise message. */
function checkTransformersEntry(id: string, entry: TransformersModelEntry): void {
  const where = `Registry: model '${id}'`;
  if ((entry.path === undefined) === (entry.hub === undefined)) throw new Error(`${where} needs exactly one of 'path' (a model folder) or 'hub' (a hub id)`);
  for (const key of ['path', 'hub'] as const) {
    if (entry[key] !== undefined && (typeof entry[key] !== 'string' || entry[key] === '')) throw new Error(`${where}: '${key}' must be a non-empty string`);
  }
  for (const [type, t] of Object.entries(entry.temperature ?? {})) {
    if (!['noul', 'choice', 'score'].includes(type) || typeof t !== 'number' || !(t > 0)) throw new Error(`${where}: temperature.${type} must be a positive number`);
  }
  for (const key of ['maxLength', 'batchSize'] as const) {
    const n = entry[key];
    if (n !== undefined && !(Number.isInteger(n) && n >= (key === 'maxLength' ? 8 : 1))) throw new Error(`${where}: '${key}' must be a positive integer`);
  }
  if (entry.labels && (typeof entry.labels.entailment !== 'string' || typeof entry.labels.contradiction !== 'string')) {
    throw new Error(`${where}: 'labels' needs the 'entailment' and 'contradiction' label names`);
  }
}

/** Resolves model names and lists models, as the registry manifest says. */
export class ModelRegistry {
  private static provided: RegistryManifest | undefined;

  private constructor(
    private readonly manifest: RegistryManifest,
    /** Folder that relative model `path`s are relative to (absent: the working directory). */
    private readonly baseDir: string | undefined,
  ) {}

  /**
   * Reads and checks a manifest; throws with a precise message when it is inconsistent.
   * Without `file`, uses the manifest given to {@link ModelRegistry.provideManifest}, else
   * `weights/manifest.json`.
   */
  static load(file?: string): ModelRegistry {
    if (file === undefined && ModelRegistry.provided) return ModelRegistry.fromManifest(ModelRegistry.provided);
    const resolved = path.resolve(file ?? defaultManifestPath());
    return ModelRegistry.fromManifest(JSON.parse(readFileSync(resolved, 'utf8')) as RegistryManifest, path.dirname(resolved));
  }

  /**
   * Makes `load()` without a file use this (already parsed) manifest; `undefined` restores the
   * default. Checked at once, so a bad manifest fails here rather than at the first request.
   */
  static provideManifest(manifest: RegistryManifest | undefined): void {
    if (manifest) ModelRegistry.fromManifest(manifest);
    ModelRegistry.provided = manifest;
  }

  /**
   * Checks a parsed manifest and wraps it; throws with a precise message when it is
   * inconsistent. Relative model folders are relative to `baseDir` (default: the working
   * directory).
   */
  static fromManifest(manifest: RegistryManifest, baseDir?: string): ModelRegistry {
    for (const [id, entry] of Object.entries(manifest.models)) {
      if (!VERSIONED_ID.test(id)) throw new Error(`Registry: model id '${id}' is not of the form evalmodel-<major>.<minor>.<patch>`);
      if (entry.kind === 'transformers-nli') checkTransformersEntry(id, entry);
      else if (entry.kind !== undefined && entry.kind !== 'builtin') throw new Error(`Registry: model '${id}' has unknown kind '${String((entry as { kind: unknown }).kind)}'`);
    }
    for (const [alias, target] of Object.entries(manifest.aliases)) {
      if (!Object.hasOwn(manifest.models, target)) throw new Error(`Registry: alias '${alias}' points at unknown model '${target}'`);
    }
    for (const entry of manifest.listed) {
      if (!Object.hasOwn(manifest.aliases, entry.name) && !Object.hasOwn(manifest.models, entry.name)) {
        throw new Error(`Registry: listed name '${entry.name}' is neither an alias nor a model`);
      }
      if (!/^\d{4}-\d{2}-\d{2}$/.test(entry.release_date)) throw new Error(`Registry: bad release_date for '${entry.name}'`);
    }
    return new ModelRegistry(manifest, baseDir);
  }

  /**
   * A registry with one more model, its alias (when given) and the alias's listing entry
   * (`GET /v1/models` lists aliases). Throws when the id or alias is taken.
   */
  withModel(id: string, entry: ModelEntry, alias?: string): ModelRegistry {
    if (Object.hasOwn(this.manifest.models, id)) throw new Error(`Registry: model id '${id}' is already in the registry`);
    if (alias !== undefined && (Object.hasOwn(this.manifest.aliases, alias) || Object.hasOwn(this.manifest.models, alias))) {
      throw new Error(`Registry: alias '${alias}' is already in the registry`);
    }
    // Paths of the other models stay relative to this registry's folder; the new one is absolute.
    const models = Object.fromEntries(Object.entries(this.manifest.models).map(([k, e]) => [k, this.absolute(e)]));
    const added: RegistryManifest = {
      aliases: alias === undefined ? { ...this.manifest.aliases } : { ...this.manifest.aliases, [alias]: id },
      listed: alias === undefined ? [...this.manifest.listed] : [...this.manifest.listed, { name: alias, description: entry.description, release_date: entry.release_date }],
      models: { ...models, [id]: entry },
    };
    return ModelRegistry.fromManifest(added, this.baseDir);
  }

  private absolute(entry: ModelEntry): ModelEntry {
    return entry.kind === 'transformers-nli' && entry.path !== undefined ? { ...entry, path: path.resolve(this.baseDir ?? process.cwd(), entry.path) } : entry;
  }

  /** Alias or versioned id -> versioned id. Versioned ids resolve whether listed or not. */
  resolve(name: string): string {
    if (Object.hasOwn(this.manifest.aliases, name)) return this.manifest.aliases[name]!;
    if (Object.hasOwn(this.manifest.models, name)) return name;
    // The names a caller is told about are the listing's (as the server's error says), not unlisted ids.
    throw new UnknownModelError(name, this.manifest.listed.map((m) => m.name));
  }

  /** The model a name resolves to (a model folder's path made absolute). */
  spec(name: string): ModelSpec {
    const id = this.resolve(name);
    return { id, ...this.absolute(this.manifest.models[id]!) } as ModelSpec;
  }

  /** The listing of `GET /v1/models`: the aliases, with description and release date. */
  list(): ModelMetadataList {
    return { models: this.manifest.listed.map((m) => ({ ...m })) };
  }

  /** Every name `resolve` accepts. */
  names(): string[] {
    return [...Object.keys(this.manifest.aliases), ...Object.keys(this.manifest.models)];
  }

  /** Versioned ids of every model, in manifest order. */
  ids(): string[] {
    return Object.keys(this.manifest.models);
  }
}
