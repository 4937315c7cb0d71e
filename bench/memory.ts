/**
 * Memory after large requests: resident set, V8 heap, ArrayBuffers and the tfjs WebAssembly
 * heap of one in-process engine, fresh and after growing states.
 *
 *   npm run build && node dist/bench/memory.js
 *
 * The wasm heap only grows (WebAssembly memory cannot shrink); V8 returns freed pages lazily.
 * Prints one line per step.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { createEngine } from '../src/engine/engine.js';

const WORDS = 'parcel carrier warehouse invoice refund customer delivery address weather morning report pallet driver station river garden window'.split(' ');
const words = (n: number, seed: number) => [`case ${seed}`, ...Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length])].join(' ');
/** A state of about `tokens` tokens (the words above average 1.4 tokens). */
const state = (tokens: number, seed: number) => words(Math.round(tokens / 1.4), seed);
const mib = (n: number) => (n / 1024 / 1024).toFixed(0);

function wasmHeapBytes(): number | null {
  const backend = tf.backend() as unknown as { wasm?: { HEAPU8?: Uint8Array } };
  return backend.wasm?.HEAPU8?.byteLength ?? null;
}

function line(label: string): void {
  globalThis.gc?.();
  const m = process.memoryUsage();
  const wasm = wasmHeapBytes();
  console.log(`${label.padEnd(34)} rss ${mib(m.rss)} MiB | heap used ${mib(m.heapUsed)} | external ${mib(m.external)} | array buffers ${mib(m.arrayBuffers)} | wasm heap ${wasm === null ? 'n/a' : mib(wasm)} MiB`);
}

const engine = await createEngine();
const q = { q: { type: 'noul', instructions: 'Is the parcel late?' } } as const;
await engine.evaluate('warm up', q);
line('fresh (after one small request)');
for (let i = 0; i < 6; i++) await engine.evaluate(state(10_000, i), q);
line('after six 10k-token states');
for (let i = 0; i < 3; i++) await engine.evaluate(state(28_000, 100 + i), q);
line('after three 28k-token states');
for (let i = 0; i < 20; i++) await engine.evaluate(`small ${i}`, q);
line('after twenty small requests');
await engine.close();
line('after close');
