/**
 * The registry an engine serves, from its options: the default manifest or the caller's, plus
 * the model folder of `modelDir`. The single engine and the pool both build theirs here, so
 * both list and resolve the same names.
 * @module
 */
import { ModelRegistry } from '../registry/index.js';
import { describeModelFolder } from '../transformers/folder.js';
import type { EngineConfig } from './contract.js';

export function registryFor(config: Pick<EngineConfig, 'manifest' | 'modelDir'>): ModelRegistry {
  const { manifest, modelDir } = config;
  let registry =
    manifest === undefined ? ModelRegistry.load() : typeof manifest === 'string' ? ModelRegistry.load(manifest) : ModelRegistry.fromManifest(manifest);
  if (modelDir !== undefined) {
    const folder = describeModelFolder(modelDir);
    registry = registry.withModel(folder.id, folder.entry, folder.alias);
  }
  return registry;
}

/** The versioned id of the model folder `modelDir` adds (for `evalmodel ask --model <folder>`). */
export function modelDirId(modelDir: string): string {
  return describeModelFolder(modelDir).id;
}
