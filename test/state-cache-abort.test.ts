/**
 * The state cache shares one encoding pass between concurrent requests about the same state,
 * and aborts it only when every request waiting on it has been aborted: a client that leaves
 * must not fail another client's identical request, and a pass nobody waits for stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import type { Engine } from '../src/engine/contract.js';
import { readEncoderWork } from '../src/encoder/index.js';

const WORDS = 'parcel carrier warehouse invoice refund customer delivery address weather morning report pallet driver station river garden window'.split(' ');
const longState = (words: number) => {
  const seed = Math.floor(Math.random() * 1e9);
  return [`case ${seed}`, ...Array.from({ length: words }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length])].join(' ');
};
const QUESTIONS = { q: { type: 'noul', instructions: 'Is the parcel late?' } } as const;

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
  await engine.evaluate('warm up', QUESTIONS);
});
afterAll(() => engine?.close());

describe('shared state encodings and aborts', () => {
  it('keeps encoding for a request that still waits when another one about the same state aborts', async () => {
    const state = longState(3_000);
    const leaving = new AbortController();
    const before = engine.stats();
    const gone = engine.evaluate(state, QUESTIONS, 'evalmodel-latest', { signal: leaving.signal });
    const staying = engine.evaluate(state, QUESTIONS);
    await new Promise((r) => setTimeout(r, 50));
    leaving.abort();
    await expect(gone).rejects.toThrow();
    const answer = await staying;
    expect(answer.answers.q).toBeDefined();
    // One encoding pass served both (the second request joined the first one's pass).
    expect(engine.stats().stateEncodes - before.stateEncodes).toBe(1);
    // And it equals a fresh evaluation of the same state from the cache.
    expect(await engine.evaluate(state, QUESTIONS)).toEqual(answer);
  }, 120_000);

  it('stops the pass when every request waiting on it has aborted, and a later request starts afresh', async () => {
    const state = longState(8_000);
    const a = new AbortController();
    const b = new AbortController();
    const tokens = readEncoderWork().tokens;
    const first = engine.evaluate(state, QUESTIONS, 'evalmodel-latest', { signal: a.signal });
    const second = engine.evaluate(state, QUESTIONS, 'evalmodel-latest', { signal: b.signal });
    await new Promise((r) => setTimeout(r, 50));
    a.abort();
    b.abort();
    await expect(first).rejects.toThrow();
    await expect(second).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 300));
    const stopped = readEncoderWork().tokens;
    // Far from the 10k tokens of the whole state, and nothing runs any more.
    expect(stopped - tokens).toBeLessThan(5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(readEncoderWork().tokens).toBe(stopped);
    // The aborted pass left nothing behind: the same state is encoded again, completely.
    const after = await engine.evaluate(state, QUESTIONS);
    expect(after.answers.q).toBeDefined();
  }, 120_000);
});
