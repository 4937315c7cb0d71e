// One pass's windows split between this encoder and a helper (src/encoder/split.ts; in a pool
// the helper is an idle peer worker), and one window's rows cut between them (rows.ts).
// Results must be bit-for-bit those of one encoder alone.
import * as tf from '@tensorflow/tfjs-core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/encoder/backend.js';
import { Encoder, type StateEncoding, type WindowHelper } from '../src/encoder/index.js';
import { encodeRowsHere } from '../src/encoder/rows.js';
import { MAX_ROW_TOKENS, MIN_ROW_TOKENS, MIN_SPLIT_TOKENS, planRows, splitWindows } from '../src/encoder/split.js';
import { TransformerEncoder } from '../src/encoder/transformer.js';
import { loadEncoderWeights } from '../src/encoder/weights.js';
import { helpRowJob, ownRowJob, rowBuffer } from '../src/engine/rows-channel.js';
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

describe('planRows', () => {
  it('cuts a lone long window in half, and balances unequal windows between the sides', () => {
    expect(planRows([120])).toEqual({ windows: [0], cuts: [60] });
    // A short tail stays here (it runs on the grouped path): this side takes fewer long rows.
    expect(planRows([128, 12])).toEqual({ windows: [0], cuts: [51] });
    // 128 + 52: 90 rows here, the helper 38 of the first window and all of the second.
    expect(planRows([128, 52])).toEqual({ windows: [0, 1], cuts: [90, 0] });
  });

  it('balances every plan within one window-part of half the work', () => {
    expect(planRows([13, 53, 30])).toEqual({ windows: [1], cuts: [0] });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 128 }), { minLength: 1, maxLength: 3 }), (lengths) => {
        const plan = planRows(lengths);
        if (!plan) return true;
        const here = plan.cuts.reduce((s, c) => s + c, 0) + lengths.reduce((s, n, i) => s + (plan.windows.includes(i) ? 0 : n + 13), 0);
        const there = plan.windows.reduce((s, w, k) => s + lengths[w]! - plan.cuts[k]!, 0);
        const valid = plan.cuts.every((c, k) => c >= 0 && c <= lengths[plan.windows[k]!]!);
        // Balanced, unless the short windows this side keeps are already more than half.
        return valid && (Math.abs(here - there) <= 14 || (plan.cuts.every((c) => c === 0) && here > there));
      }),
    );
  });

  it('leaves short passes and long passes to the other paths', () => {
    expect(planRows([MIN_ROW_TOKENS - 1])).toBeNull();
    expect(planRows([128, 128, 128])).toBeNull();
    expect(MAX_ROW_TOKENS).toBeLessThan(384);
  });
});

describe('a window cut in rows', () => {
  it('gives the single pass\'s token states bit for bit, whatever the lengths and the cuts', async () => {
    await initBackend();
    const transformer = new TransformerEncoder(await loadEncoderWeights());
    const whole = (ids: number[]) => {
      const out = transformer.sequenceSums([ids], { keepStates: true });
      const states = out.states!.dataSync() as Float32Array;
      tf.dispose([out.sums, out.states!]);
      return states;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 33, max: 128 }).chain((n) => fc.tuple(fc.array(fc.integer({ min: 100, max: 8000 }), { minLength: n, maxLength: n }), fc.integer({ min: 0, max: n }))),
        ([ids, cut]) => {
          const [[a], [b]] = encodeRowsHere(transformer, [ids], [cut]) as [[Float32Array], [Float32Array]];
          const joined = new Float32Array(a.length + b.length);
          joined.set(a);
          joined.set(b, a.length);
          return same(joined, whole(ids));
        },
      ),
      { numRuns: 24 },
    );
    // Two windows, each side holding any share of each, all of one or none of it included.
    const windowAndCut = fc.integer({ min: 33, max: 128 }).chain((n) => fc.tuple(fc.array(fc.integer({ min: 100, max: 8000 }), { minLength: n, maxLength: n }), fc.integer({ min: 0, max: n })));
    fc.assert(
      fc.property(fc.tuple(windowAndCut, windowAndCut), (pair) => {
        const windows = pair.map(([ids]) => ids);
        const [mine, theirs] = encodeRowsHere(transformer, windows, pair.map(([, cut]) => cut));
        return windows.every((ids, i) => {
          const joined = new Float32Array(mine[i]!.length + theirs[i]!.length);
          joined.set(mine[i]!);
          joined.set(theirs[i]!, mine[i]!.length);
          return same(joined, whole(ids));
        });
      }),
      { numRuns: 12 },
    );
    transformer.dispose();
  });
});

describe('encoding with a helper', () => {
  let plain: Encoder;
  let main: Encoder;
  let other: Encoder;
  let tokenizer: Tokenizer;
  let sent = 0;
  let rowJobs = 0;
  let idle = true;
  let failing = false;
  const helper: WindowHelper = {
    available: () => idle,
    encode: async (windows, keep) => {
      sent += windows.length;
      if (failing) throw new Error('helper gone');
      return other.encodeWindows(windows, keep);
    },
    // Both sides in this thread, step by step (in a pool, rows-channel.ts moves the rows).
    rows: (job, mine, meanwhile) => {
      rowJobs++;
      const theirs = other.rowSide(job, 1);
      let a = mine.next();
      let b = theirs.next();
      if (failing) return null; // gave up after the first step
      while (!a.done && !b.done) {
        const ours = a.value;
        a = mine.next(b.value);
        b = theirs.next(ours);
      }
      meanwhile();
      return a.done && b.done ? { mine: a.value, theirs: b.value } : null;
    },
  };
  beforeAll(async () => {
    [plain, main, other, tokenizer] = await Promise.all([Encoder.load({ backend: 'wasm' }), Encoder.load({ backend: 'wasm' }), Encoder.load({ backend: 'wasm' }), loadVocabulary().then(createTokenizer)]);
    main.helper = helper;
  });

  const text = (words: number, seed: number) =>
    tokenizer.encode(Array.from({ length: words }, (_, i) => ['parcel', 'refund', 'late', 'the', 'warehouse', 'report', 'carrier', 'broken'][(i * 7 + seed) % 8]).join(' '));

  it('gives the single encoder\'s states and embeddings, bit for bit, for one state at a time', async () => {
    for (const [words, seed] of [[150, 1], [200, 2], [300, 3], [700, 4]] as const) {
      const ids = text(words, seed);
      const before = sent + rowJobs;
      const [a, b] = [await plain.encodeState(ids), await main.encodeState(ids)];
      expect(sameEncoding(a, b), `${ids.length} tokens`).toBe(true);
      // Shared with the helper: windows sent away, or (up to MAX_ROW_TOKENS) rows.
      if (ids.length > 128 && ids.length >= MIN_SPLIT_TOKENS) expect(sent + rowJobs).toBeGreaterThan(before);
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

  it('cuts lone windows in rows, bit for bit the single encoder (fast-check over lengths)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 60, max: 200 }), fc.integer({ min: 0, max: 7 }), async (words, seed) => {
        const ids = text(words, seed);
        const before = rowJobs;
        const [a, b] = [await plain.encodeState(ids), await main.encodeState(ids)];
        const lengths = Array.from({ length: Math.ceil(ids.length / 128) }, (_, i) => Math.min(128, ids.length - i * 128));
        expect(rowJobs - before).toBe(planRows(lengths) ? 1 : 0);
        return sameEncoding(a, b);
      }),
      { numRuns: 20 },
    );
  });

  it('encodes the rows itself when the row helper gives up midway', async () => {
    const ids = text(90, 9);
    const expected = await plain.encodeState(ids);
    failing = true;
    const before = rowJobs;
    expect(sameEncoding(await main.encodeState(ids), expected)).toBe(true);
    expect(rowJobs).toBe(before + 1);
    failing = false;
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

describe('the row channel between workers', () => {
  it('withdraws a job nobody claims, and a late helper finds it withdrawn', async () => {
    const encoder = await Encoder.load({ backend: 'wasm' });
    const buffer = rowBuffer();
    const ids = Array.from({ length: 100 }, (_, i) => 200 + i);
    const job = { windows: [ids], cuts: [50] };
    let offered = 0;
    const result = ownRowJob(buffer, 7, job, encoder.rowSide(job, 0), () => offered++, () => undefined);
    expect(result).toBeNull();
    expect(offered).toBe(1);
    expect(helpRowJob(buffer, 7, () => encoder.rowSide(job, 1))).toBe(false);
    encoder.dispose();
  });
});
