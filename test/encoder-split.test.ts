// One pass's windows split between this encoder and a helper (src/encoder/split.ts; in a pool
// the helper is an idle peer worker). Results must be bit-for-bit those of one encoder alone.
import { beforeAll, describe, expect, it } from 'vitest';
import { Encoder, type StateEncoding, type WindowHelper } from '../src/encoder/index.js';
import { MIN_SPLIT_TOKENS, splitWindows } from '../src/encoder/split.js';
import { createTokenizer, loadVocabulary, type Tokenizer } from '../src/tokenizer/index.js';

const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
const sameEncoding = (a: StateEncoding, b: StateEncoding) =>
  same(a.pooled, b.pooled) && same(a.tokenStates, b.tokenStates) && a.tokenCount === b.tokenCount && a.windows === b.windows;

describe('splitWindows', () => {
  it('keeps short passes and single windows here', () => {
    expect(splitWindows([128])).toBeNull();
    expect(splitWindows([100, 20])).toBeNull();
    expect(splitWindows([MIN_SPLIT_TOKENS - 10, 9])).toBeNull();
  });

  it('sends the smaller share away, longest windows first', () => {
    expect(splitWindows([128, 52])).toEqual([false, true]);
    expect(splitWindows([128, 128])).toEqual([false, true]);
    expect(splitWindows([128, 128, 128, 100])).toEqual([false, true, false, true]);
  });

  it('keeps short windows here (they run in equal-length groups)', () => {
    expect(splitWindows([128, 128, 128, 8])).toEqual([false, true, false, false]);
    expect(splitWindows(Array.from({ length: 30 }, () => 12))).toBeNull();
  });
});

describe('encoding with a helper', () => {
  let plain: Encoder;
  let main: Encoder;
  let other: Encoder;
  let tokenizer: Tokenizer;
  let sent = 0;
  let idle = true;
  let failing = false;
  const helper: WindowHelper = {
    available: () => idle,
    encode: async (windows, keep) => {
      sent += windows.length;
      if (failing) throw new Error('helper gone');
      return other.encodeWindows(windows, keep);
    },
  };
  beforeAll(async () => {
    [plain, main, other, tokenizer] = await Promise.all([Encoder.load(), Encoder.load(), Encoder.load(), loadVocabulary().then(createTokenizer)]);
    main.helper = helper;
  });

  const text = (words: number, seed: number) =>
    tokenizer.encode(Array.from({ length: words }, (_, i) => ['parcel', 'refund', 'late', 'the', 'warehouse', 'report', 'carrier', 'broken'][(i * 7 + seed) % 8]).join(' '));

  it('gives the single encoder\'s states and embeddings, bit for bit, for one state at a time', async () => {
    for (const [words, seed] of [[150, 1], [200, 2], [300, 3], [700, 4]] as const) {
      const ids = text(words, seed);
      const before = sent;
      const [a, b] = [await plain.encodeState(ids), await main.encodeState(ids)];
      expect(sameEncoding(a, b), `${ids.length} tokens`).toBe(true);
      if (ids.length > 128 && ids.length >= MIN_SPLIT_TOKENS) expect(sent).toBeGreaterThan(before);
    }
  });

  it('and for several texts in one pass, with or without token states', async () => {
    const texts = [text(180, 5), text(12, 6), text(400, 7), []];
    const alone = await Promise.all(texts.map((ids) => plain.encodeState(ids)));
    const before = sent;
    const split = await Promise.all(texts.map((ids) => main.encodeState(ids)));
    expect(sent).toBeGreaterThan(before);
    alone.forEach((a, i) => expect(sameEncoding(a, split[i]!), `text ${i}`).toBe(true));
    const pooledOnly = await Promise.all(texts.map((ids) => main.encodeState(ids, { tokenStates: false })));
    const pooledAlone = await Promise.all(texts.map((ids) => plain.encodeState(ids, { tokenStates: false })));
    pooledAlone.forEach((a, i) => expect(sameEncoding(a, pooledOnly[i]!), `pooled ${i}`).toBe(true));
  });

  it('encodes the windows itself when the helper fails, and asks no busy helper', async () => {
    const ids = text(300, 8);
    const expected = await plain.encodeState(ids);
    failing = true;
    expect(sameEncoding(await main.encodeState(ids), expected)).toBe(true);
    failing = false;
    idle = false;
    const before = sent;
    expect(sameEncoding(await main.encodeState(ids), expected)).toBe(true);
    expect(sent).toBe(before);
    idle = true;
  });
});
