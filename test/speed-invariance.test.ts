// The speed work must not change answers: every result is bit-for-bit independent of what
// else is encoded in the same call, of caching, and of where long work is cut to yield.
import { beforeAll, describe, expect, it } from 'vitest';
import { Encoder, TOKENS_PER_SLICE } from '../src/encoder/index.js';
import { createEngine, type Questions } from '../src/index.js';
import { loadOnnxRuntime } from '../src/onnx/runtime.js';
import { createTokenizer, loadVocabulary, type Tokenizer } from '../src/tokenizer/index.js';

/** Whether onnxruntime-node loads here (absent after `npm install --omit=optional`). */
const nativeLoads = await loadOnnxRuntime().then(
  () => true,
  () => false,
);

const TEXTS = [
  'Is the customer asking for a refund? Yes.',
  'a',
  '',
  'The quick brown fox jumps over the lazy dog. '.repeat(40),
  'Which team? Answer: billing: Payments and refunds',
  'Level 3 of 5: the answer cites every source and explains each step.',
];

function same(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

describe('encoder results do not depend on batching', () => {
  let encoder: Encoder;
  let tokenizer: Tokenizer;
  let ids: number[][];
  beforeAll(async () => {
    [encoder, tokenizer] = await Promise.all([Encoder.load(), loadVocabulary().then(createTokenizer)]);
    ids = TEXTS.map((t) => tokenizer.encode(t));
  });

  it('embeds each text bit-for-bit the same alone and among others', async () => {
    const together = await encoder.embedTexts(ids);
    const reversed = await encoder.embedTexts([...ids].reverse());
    for (const [i, text] of ids.entries()) {
      const [alone] = await encoder.embedTexts([text]);
      expect(same(alone!, together[i]!), TEXTS[i]).toBe(true);
      expect(same(alone!, reversed[ids.length - 1 - i]!), TEXTS[i]).toBe(true);
    }
  });

  it('embeds short texts of one length bit-for-bit the same alone and in their group', async () => {
    const options = ['billing', 'shipping', 'returns', 'security', 'payroll', 'hardware', 'network', 'accounts'];
    const group = options.map((o) => tokenizer.encode(`Which team should handle this ticket? Answer: ${o}`));
    const byLength = new Map<number, number[][]>();
    for (const g of group) byLength.set(g.length, [...(byLength.get(g.length) ?? []), g]);
    const largest = [...byLength.values()].sort((a, b) => b.length - a.length)[0]!;
    expect(largest.length).toBeGreaterThan(2);
    const together = await encoder.embedTexts([...largest, ...ids]);
    for (const [i, text] of largest.entries()) {
      const [alone] = await encoder.embedTexts([text]);
      expect(same(alone!, together[i]!)).toBe(true);
    }
    const states = await Promise.all(largest.map((t) => encoder.encodeState(t)));
    for (const [i, text] of largest.entries()) {
      const alone = await encoder.encodeState(text);
      expect(same(alone.tokenStates, states[i]!.tokenStates)).toBe(true);
      expect(same(alone.pooled, states[i]!.pooled)).toBe(true);
    }
  });

  it('encodes states bit-for-bit the same alone and when calls coalesce', async () => {
    const concurrent = await Promise.all(ids.map((t) => encoder.encodeState(t)));
    for (const [i, text] of ids.entries()) {
      const alone = await encoder.encodeState(text);
      expect(same(alone.pooled, concurrent[i]!.pooled)).toBe(true);
      expect(same(alone.tokenStates, concurrent[i]!.tokenStates)).toBe(true);
      expect(alone.tokenStates.length).toBe(text.length * 512);
    }
  });

  it('skips token states on request, with the same embedding up to rounding', async () => {
    for (const text of ids) {
      const full = await encoder.encodeState(text);
      const pooledOnly = await encoder.encodeState(text, { tokenStates: false });
      expect(pooledOnly.tokenStates.length).toBe(0);
      let cos = 0;
      for (let j = 0; j < 512; j++) cos += full.pooled[j]! * pooledOnly.pooled[j]!;
      expect(cos).toBeGreaterThan(0.99999);
    }
  });

  it('yields to the event loop inside a long state', async () => {
    const long = tokenizer.encode('The warehouse report lists every pallet received this week. '.repeat(120));
    expect(long.length).toBeGreaterThan(4 * TOKENS_PER_SLICE);
    let turns = 0;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    await encoder.encodeState(long);
    done = true;
    expect(turns).toBeGreaterThanOrEqual(Math.floor(long.length / TOKENS_PER_SLICE) - 1);
  });
});

describe('answers do not depend on the other questions or on the cache', () => {
  const state = 'I ordered the Aurora desk lamp three weeks ago and it arrived with a cracked base. I want a full refund.';
  const team: Questions[string] = {
    type: 'choice',
    instructions: 'Which team should handle this ticket?',
    criteria: { shipping: 'Delivery and damaged parcels', billing: 'Payments and refunds', technical: null },
  };
  const others: Questions = {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    anger: { type: 'score', instructions: 'How upset is the customer?', criteria: ['calm', 'annoyed', 'upset', 'furious', 'irate'] },
    long: { type: 'noul', instructions: `Is this about ${'the warehouse and its many pallets, '.repeat(30)}?` },
  };

  it('gives the same answer from fresh engines, alone and among longer questions', async () => {
    const [a, b] = await Promise.all([createEngine({ cacheBytes: 0 }), createEngine({ cacheBytes: 0 })]);
    const alone = await a.evaluate(state, { team });
    const among = await b.evaluate(state, { ...others, team });
    expect(among.answers.team).toEqual(alone.answers.team);
    // And again from the caches.
    expect((await a.evaluate(state, { ...others, x: team })).answers.x).toEqual(alone.answers.team);
    await Promise.all([a.close(), b.close()]);
  });

  // onnxruntime splits a large product's columns between intra-op threads, which changes how a
  // row's terms are summed: the heads' and the reader's sessions run on one thread whatever the
  // engine's. With the heads' sessions on two threads this request's answers differ alone and
  // batched (heads/native/runner.ts).
  it.skipIf(!nativeLoads)('gives the same answer alone and among many questions on an engine with two intra-op threads', async () => {
    const [a, b] = await Promise.all([createEngine({ cacheBytes: 0, threads: 2 }), createEngine({ cacheBytes: 0, threads: 2 })]);
    try {
      const longState = Array.from({ length: 40 }, (_, i) => `Ticket ${i}: the parcel ${i % 3 ? 'arrived late' : 'was damaged'} and the customer ${i % 2 ? 'wants a refund' : 'is calm'}.`).join(' ');
      const many: Questions = {};
      for (let i = 0; i < 30; i++) many[`q${i}`] = { ...(Object.values(others)[i % 3] as Questions[string]), instructions: `${Object.values(others)[i % 3]!.instructions} (case ${i})` } as Questions[string];
      const among = await b.evaluate(longState, { ...many, team });
      const alone = await a.evaluate(longState, { team });
      expect(among.answers.team).toEqual(alone.answers.team);
      for (const id of Object.keys(many)) expect((await a.evaluate(longState, { [id]: many[id]! })).answers[id]).toEqual(among.answers[id]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
