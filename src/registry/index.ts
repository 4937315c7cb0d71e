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
}

/** How a model's heads turn encodings into answers. */
export type HeadsSpec = ZeroShotHeadsSpec | LateInteractionHeadsSpec;

/** One versioned model. */
export interface ModelSpec {
  id: string;
  description: string;
  release_date: string;
  encoder: { package: string; version: string };
  heads: HeadsSpec;
}

/** The parsed manifest. */
export interface RegistryManifest {
  aliases: Record<string, string>;
  listed: ModelMetadata[];
  models: Record<string, Omit<ModelSpec, 'id'>>;
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

/** Resolves model names and lists models, as the registry manifest says. */
export class ModelRegistry {
  private static provided: RegistryManifest | undefined;

  private constructor(private readonly manifest: RegistryManifest) {}

  /**
   * Reads and checks a manifest; throws with a precise message when it is inconsistent.
   * Without `file`, uses the manifest given to {@link ModelRegistry.provideManifest}, else
   * `weights/manifest.json`.
   */
  static load(file?: string): ModelRegistry {
    if (file === undefined && ModelRegistry.provided) return ModelRegistry.fromManifest(ModelRegistry.provided);
    return ModelRegistry.fromManifest(JSON.parse(readFileSync(file ?? defaultManifestPath(), 'utf8')) as RegistryManifest);
  }

  /**
   * Makes `load()` without a file use this (already parsed) manifest; `undefined` restores the
   * default. Checked at once, so a bad manifest fails here rather than at the first request.
   */
  static provideManifest(manifest: RegistryManifest | undefined): void {
    if (manifest) ModelRegistry.fromManifest(manifest);
    ModelRegistry.provided = manifest;
  }

  /** Checks a parsed manifest and wraps it; throws with a precise message when it is inconsistent. */
  static fromManifest(manifest: RegistryManifest): ModelRegistry {
    for (const id of Object.keys(manifest.models)) {
      if (!VERSIONED_ID.test(id)) throw new Error(`Registry: model id '${id}' is not of the form evalmodel-<major>.<minor>.<patch>`);
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
    return new ModelRegistry(manifest);
  }

  /** Alias or versioned id -> versioned id. Versioned ids resolve whether listed or not. */
  resolve(name: string): string {
    if (Object.hasOwn(this.manifest.aliases, name)) return this.manifest.aliases[name]!;
    if (Object.hasOwn(this.manifest.models, name)) return name;
    // The names a caller is told about are the listing's (as the server's error says), not unlisted ids.
    throw new UnknownModelError(name, this.manifest.listed.map((m) => m.name));
  }

  /** The model a name resolves to. */
  spec(name: string): ModelSpec {
    const id = this.resolve(name);
    return { id, ...this.manifest.models[id]! };
  }

  /** The listing of `GET /v1/models`: the aliases, with description and release date. */
  list(): ModelMetadataList {
    return { models: this.manifest.listed.map((m) => ({ ...m })) };
  }

  /** Every name `resolve` accepts. */
  names(): string[] {
    return [...Object.keys(this.manifest.aliases), ...Object.keys(this.manifest.models)];
  }
}
