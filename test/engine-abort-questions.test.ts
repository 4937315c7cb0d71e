/**
 * An aborted request stops encoding its question texts too (issue 19): the signal is checked
 * at every window slice of the outcome embeddings and of the heads' per-text passes, not only
 * around the state. A request whose state is tiny but whose options are many new long texts is
 * aborted shortly after it starts: it rejects soon after, with most of its text never encoded,
 * and another request asking the same texts afterwards still gets its answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/index.js';

const WORDS = 'parcel refund invoice courier damaged warehouse delayed tracking customer replacement'.split(' ');

/** `count` distinct options (name -> a description of about `words` words). */
function criteria(count: number, words: number, seed: number): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`option ${i}`, Array.from({ length: words }, (_, w) => WORDS[(i * 7 + w * 3 + seed) % WORDS.length]).join(' ') + ` (${seed}-${i})`]),
  );
}

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
});
afterAll(async () => {
  await engine.close();
});

describe('aborting during question-text encoding', () => {
  it('stops within a window slice and leaves most of the texts unencoded', async () => {
    const seed = Math.floor(Math.random() * 1e6);
    const question = { type: 'choice' as const, instructions: 'Which option fits the ticket?', criteria: criteria(48, 120, seed) };
    const controller = new AbortController();
    const before = engine.stats().encodedTokens;
    const run = engine.evaluate({ model: 'evalmodel-latest', state: 'A short ticket.', questions: { q: question } }, { signal: controller.signal });
    const settled = run.then(
      () => 'answered',
      (e: unknown) => (e instanceof Error ? e.name : String(e)),
    );
    // Let it start, then abort.
    await new Promise((r) => setTimeout(r, 30));
    const abortedAt = performance.now();
    controller.abort();
    expect(await settled).toBe('AbortError');
    const stoppedAfter = performance.now() - abortedAt;
    const encoded = engine.stats().encodedTokens - before;

    // The same request, not aborted, for its whole cost.
    const full = await engine.evaluate({ model: 'evalmodel-latest', state: 'A short ticket.', questions: { q: question } });
    expect(full.answers.q!.type).toBe('choice');
    const whole = engine.stats().encodedTokens - before - encoded;
    // Loose bounds (shared CI machines): a slice is 256 tokens, far under a second.
    expect(stoppedAfter).toBeLessThan(1000);
    expect(encoded).toBeLessThan(whole / 2);
  });

  it('a request sharing texts with an aborted one still gets its answers', async () => {
    const seed = Math.floor(Math.random() * 1e6);
    const question = { type: 'choice' as const, instructions: 'Which option fits?', criteria: criteria(24, 120, seed) };
    const controller = new AbortController();
    const aborted = engine.evaluate({ model: 'evalmodel-latest', state: 'First ticket.', questions: { q: question } }, { signal: controller.signal });
    const other = engine.evaluate({ model: 'evalmodel-latest', state: 'Second ticket.', questions: { q: question } });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(aborted).rejects.toThrow();
    const answer = (await other).answers.q!;
    expect(answer.type).toBe('choice');
  });
});
