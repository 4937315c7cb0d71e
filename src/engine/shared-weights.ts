/**
 * The encoder's weight files read once by the pool, into shared read-only memory its workers
 * all read from (no copy of the weights per worker).
 * @module
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { weightsPackageDir, type ModelJson } from '../encoder/weights.js';
import type { WorkerInit } from './worker.js';

/** Reads the encoder's weight files once, into shared read-only memory for the workers. */
export async function shareWeights(): Promise<NonNullable<WorkerInit['weights']>> {
  const dir = weightsPackageDir();
  const modelJson = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8')) as ModelJson;
  const shards: Record<string, SharedArrayBuffer> = {};
  for (const group of modelJson.weightsManifest) {
    for (const p of group.paths) {
      const data = await readFile(path.join(dir, p));
      const shared = new SharedArrayBuffer(data.byteLength);
      new Uint8Array(shared).set(data);
      shards[p] = shared;
    }
  }
  // Only what the encoder reads; the graph topology stays behind.
  return { modelJson: { weightsManifest: modelJson.weightsManifest }, shards };
}
