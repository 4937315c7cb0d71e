/**
 * One worker of the engine pool (see `pool.ts`): a whole engine in its own thread, with its
 * own tfjs backend, caches and event loop. It shares nothing with the other workers but the
 * encoder's weight files, which the pool reads once and hands over as read-only shared memory.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setEncoderWeightSource, type ModelJson } from '../encoder/weights.js';
import { createEngineWithEncoder } from './engine.js';
import type { Engine, EngineConfig, EngineStats } from './contract.js';
import { busyWhile, connectPeers, type PeerInit } from './peers.js';

/** What the pool passes to each worker. */
export interface WorkerInit {
  config: EngineConfig;
  /** The encoder's model.json and its shards (by the paths model.json lists), shared read-only. */
  weights?: { modelJson: ModelJson; shards: Record<string, SharedArrayBuffer> };
  /** Ports to the other workers, for help with one request's windows (absent: works alone). */
  peers?: PeerInit;
}

/** Messages from the pool. */
export type ToWorker =
  | { type: 'evaluate'; id: number; request: unknown }
  | { type: 'estimate'; id: number; request: unknown }
  | { type: 'abort'; id: number }
  | { type: 'close' };

/** An error as it crosses the thread boundary. */
export interface SerializedError {
  name: string;
  message: string;
  detail?: unknown;
  model?: string;
  available?: readonly string[];
}

/** Messages to the pool. */
export type FromWorker =
  | { type: 'ready'; stats: EngineStats }
  | { type: 'failed'; error: SerializedError }
  | { type: 'work'; id: number; units: number }
  | { type: 'estimated'; id: number; ok: true; units: number }
  | { type: 'estimated'; id: number; ok: false; error: SerializedError }
  | { type: 'result'; id: number; ok: true; value: unknown; stats: EngineStats }
  | { type: 'result'; id: number; ok: false; error: SerializedError; stats: EngineStats }
  | { type: 'closed' };

function serialize(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const out: SerializedError = { name: error.name, message: error.message };
  const e = error as Error & { detail?: unknown; model?: unknown; available?: unknown };
  if (e.detail !== undefined) out.detail = e.detail;
  if (typeof e.model === 'string') out.model = e.model;
  if (Array.isArray(e.available)) out.available = e.available as string[];
  return out;
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('engine worker started outside a worker thread');
  const post = (message: FromWorker) => port.postMessage(message);
  const init = workerData as WorkerInit;
  if (init.weights) {
    const { modelJson, shards } = init.weights;
    setEncoderWeightSource({
      modelJson,
      async readShard(p) {
        const shard = shards[p];
        if (!shard) throw new Error(`weight shard '${p}' was not shared with the worker`);
        return new Uint8Array(shard).slice().buffer;
      },
    });
  }
  let engine: Engine;
  let disconnect = () => {};
  try {
    const created = await createEngineWithEncoder(init.config);
    engine = created.engine;
    if (init.peers) disconnect = connectPeers(init.peers, created.encoder, created.heads);
  } catch (error) {
    post({ type: 'failed', error: serialize(error) });
    return;
  }
  const running = new Map<number, AbortController>();
  port.on('message', (message: ToWorker) => {
    if (message.type === 'evaluate') {
      const controller = new AbortController();
      running.set(message.id, controller);
      busyWhile(init.peers, () => engine.evaluate(message.request, { signal: controller.signal, onWork: (units) => post({ type: 'work', id: message.id, units }) })).then(
        (value) => post({ type: 'result', id: message.id, ok: true, value, stats: engine.stats() }),
        (error: unknown) => post({ type: 'result', id: message.id, ok: false, error: serialize(error), stats: engine.stats() }),
      ).finally(() => running.delete(message.id));
    } else if (message.type === 'estimate') {
      // Kept token ids stay in this worker, where the pool sends the evaluation too.
      engine.estimateWork!(message.request).then(
        (units) => post({ type: 'estimated', id: message.id, ok: true, units }),
        (error: unknown) => post({ type: 'estimated', id: message.id, ok: false, error: serialize(error) }),
      );
    } else if (message.type === 'abort') {
      running.get(message.id)?.abort(new DOMException('The evaluation was aborted', 'AbortError'));
    } else if (message.type === 'close') {
      void engine.close().finally(() => {
        disconnect();
        post({ type: 'closed' });
        port.close();
      });
    }
  });
  post({ type: 'ready', stats: engine.stats() });
}

await main();
