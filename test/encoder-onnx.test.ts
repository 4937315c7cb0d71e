/**
 * The encoder on onnxruntime-node against the tfjs encoder on the wasm backend: both built from
 * the one plan of architecture.ts, so their token states, sums and embeddings must agree to
 * float32 rounding, and an engine's answers to 1e-4. Skipped (with the reason printed) where
 * onnxruntime-node is not installed, e.g. after `npm install --omit=optional`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEncoder } from '../src/encoder/architecture.js';
import { initBackend } from '../src/encoder/backend.js';
import { Encoder } from '../src/encoder/index.js';
import { loadOnnxRuntime, OnnxRunner } from '../src/encoder/onnx-runner.js';
import { selfTest } from '../src/encoder/registry.js';
import { TfjsRunner, type PassRunner } from '../src/encoder/runner.js';
import { TransformerEncoder } from '../src/encoder/transformer.js';
import { ENCODER_SHAPE, loadEncoderWeights } from '../src/encoder/weights.js';
import { createEngine, type Engine } from '../src/index.js';
import { dataDir, loadCases, splitOf } from '../src/training/data.js';
import type { Answer } from '../src/types.js';

const native = await loadOnnxRuntime().then(
  () => null,
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
if (native) console.warn(`test/encoder-onnx.test.ts skipped: onnxruntime-node does not load here (${native})`);

const HIDDEN = ENCODER_SHAPE.hiddenDim;
/** Token states have norms of about 20; float32 products in another order differ by ~1e-4. */
const STATE_TOLERANCE = 1e-3;
const EMBEDDING_TOLERANCE = 2e-5;
const ANSWER_TOLERANCE = 1e-4;

const window = (maxLength: number) => fc.array(fc.integer({ min: 0, max: ENCODER_SHAPE.vocabSize - 1 }), { minLength: 0, maxLength });

function worst(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

function means(sums: Float32Array, windows: readonly (readonly number[])[]): Float32Array {
  return sums.map((v, i) => v / Math.max(1, windows[Math.floor(i / HIDDEN)]!.length));
}

describe.skipIf(native !== null)('encoder on onnxruntime-node (parity with tfjs-wasm)', () => {
  let tfjs: TfjsRunner;
  let ort: OnnxRunner;
  beforeAll(async () => {
    await initBackend('wasm');
    const weights = await loadEncoderWeights();
    tfjs = new TfjsRunner(new TransformerEncoder(weights), 'wasm');
    const plan = planEncoder(weights);
    ort = await OnnxRunner.create(plan);
    for (const t of plan.tensors) t.dispose();
  });
  afterAll(() => {
    tfjs?.dispose();
    ort?.dispose();
  });

  it('token states, sums and embeddings equal the tfjs encoder to float32 rounding (random ids and lengths)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(window(ENCODER_SHAPE.maxTokens), { minLength: 1, maxLength: 3 }), async (windows) => {
        const want = tfjs.run(windows, true);
        const got = await ort.run(windows, true);
        expect(worst(got.states!, want.states!)).toBeLessThanOrEqual(STATE_TOLERANCE);
        expect(worst(got.sums, want.sums)).toBeLessThanOrEqual(STATE_TOLERANCE * ENCODER_SHAPE.maxTokens);
        const pooled = worst(await ort.pool(means(got.sums, windows), windows.length), tfjs.pool(means(want.sums, windows), windows.length));
        expect(pooled).toBeLessThanOrEqual(EMBEDDING_TOLERANCE);
        // Pooled-only passes return the same sums and no states.
        const sumsOnly = await ort.run(windows, false);
        expect(sumsOnly.states).toBeNull();
        expect(sumsOnly.sums).toEqual(got.sums);
      }),
      { numRuns: 12, seed: 17 },
    );
  });

  it('a window gives the same bits alone and in a run with others (of its length or not)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 3 }), fc.integer(), async (length, others, seed) => {
        const ids = (n: number, k: number) => Array.from({ length: n }, (_, t) => Math.abs(seed * 31 + k * 7919 + t * 104_729) % ENCODER_SHAPE.vocabSize);
        const windows = [ids(length, 0), ...others.map((n, k) => ids(n === 0 ? length : n, k + 1))];
        const together = await ort.run(windows, true);
        const alone = await ort.run([windows[0]!], true);
        expect(alone.states).toEqual(together.states!.subarray(0, length * HIDDEN));
        expect(alone.sums).toEqual(together.sums.subarray(0, HIDDEN));
      }),
      { numRuns: 15, seed: 3 },
    );
  });

  it("the registry's self-test passes it and rejects a runner whose states are off", async () => {
    await expect(selfTest(ort, tfjs)).resolves.toBeUndefined();
    const skewed: PassRunner = {
      backend: 'onnxruntime-node',
      run: async (windows, keep) => {
        const r = await ort.run(windows, keep);
        return { sums: r.sums, states: r.states ? r.states.map((v, i) => (i === 7 ? v + 0.01 : v)) : null };
      },
      pool: (m, n) => ort.pool(m, n),
      dispose: () => undefined,
    };
    await expect(selfTest(skewed, tfjs)).rejects.toThrow(/self-test failed: token states differ/);
  });
});

describe('encoder backend registry', () => {
  it.skipIf(native !== null)('runs the encoder on onnxruntime-node first, and the trained heads and the reader beside it once asked', async () => {
    const engine = await createEngine();
    try {
      const stats = engine.stats();
      expect(stats.backend).toBe('onnxruntime-node');
      expect(stats.backends[0]).toEqual({ name: 'onnxruntime-node' });
      expect(['tensorflow', 'wasm', 'cpu']).toContain(stats.tfjsBackend);
      // The trained heads and the reader follow the encoder onto onnxruntime-node at their first request.
      expect(stats.reader).toBeNull();
      expect(stats.heads).toBeNull();
      await engine.evaluate({ model: 'evalmodel-latest', state: 'The parcel arrived broken.', questions: { q: { type: 'noul', instructions: 'Is the customer unhappy?' } } });
      expect(engine.stats().reader).toEqual({ backend: 'onnxruntime-node', tried: [{ name: 'onnxruntime-node' }] });
      expect(engine.stats().heads).toEqual({ backend: 'onnxruntime-node', tried: [{ name: 'onnxruntime-node' }] });
    } finally {
      await engine.close();
    }
  });

  it('falls back to a tfjs backend when onnxruntime-node cannot load, and says why', async () => {
    const encoder = await Encoder.load({ nativeModule: 'onnxruntime-node-not-installed' });
    try {
      expect(encoder.backend.backend).not.toBe('onnxruntime-node');
      expect(encoder.backend.backend).toBe(encoder.backend.tfjs);
      const attempt = encoder.backend.tried[0]!;
      expect(attempt.name).toBe('onnxruntime-node');
      expect(attempt.error).toMatch(/onnxruntime-node-not-installed/);
      // It still encodes.
      const e = await encoder.encodeState([5, 6, 7]);
      expect(e.pooled).toHaveLength(HIDDEN);
    } finally {
      encoder.dispose();
    }
  });

  it('a backend asked for by name that cannot start is an error, not a silent fallback', async () => {
    await expect(Encoder.load({ backend: 'onnxruntime-node', nativeModule: 'onnxruntime-node-not-installed' })).rejects.toThrow(/onnxruntime-node' could not start/);
  });
});

/** Every probability an answer carries, by a stable key. */
function numbers(answer: Answer): Record<string, number> {
  if (answer.type === 'noul') return { noul: answer.noul };
  const out: Record<string, number> = { confidence: answer.confidence };
  for (const [k, v] of Object.entries(answer.probabilities)) out[`p:${k}`] = v;
  if (answer.type === 'score') out.score = answer.score;
  return out;
}

const data = dataDir();
const hasData = existsSync(path.join(data, 'jevbench-sample'));
if (!hasData) console.warn(`test/encoder-onnx.test.ts: answer parity on jevbench-sample skipped (no shared data at ${data})`);

describe.skipIf(native !== null)('engine answers on onnxruntime-node (encoder, heads and reader) equal the wasm engine to 1e-4', () => {
  let fast: Engine;
  let wasm: Engine;
  beforeAll(async () => {
    [fast, wasm] = await Promise.all([createEngine({ backend: 'onnxruntime-node' }), createEngine({ backend: 'wasm' })]);
  });
  afterAll(async () => {
    await Promise.all([fast?.close(), wasm?.close()]);
  });

  async function expectSame(state: unknown, questions: Record<string, unknown>): Promise<void> {
    const [a, b] = await Promise.all([fast.evaluate({ model: 'evalmodel-latest', state, questions }), wasm.evaluate({ model: 'evalmodel-latest', state, questions })]);
    expect(a.usage).toEqual(b.usage);
    for (const id of Object.keys(questions)) {
      const [x, y] = [numbers(a.answers[id]!), numbers(b.answers[id]!)];
      expect(Object.keys(x)).toEqual(Object.keys(y));
      for (const k of Object.keys(x)) expect(Math.abs(x[k]! - y[k]!), `${id} ${k}`).toBeLessThanOrEqual(ANSWER_TOLERANCE);
    }
  }

  it('on a long state (several windows) and each question type', async () => {
    const state = Array.from({ length: 60 }, (_, i) => `Line ${i}: the order ${1000 + i} was ${i % 3 === 0 ? 'late' : 'on time'}.`).join(' ');
    await expectSame(state, {
      a: { type: 'noul', instructions: 'Were some orders late?' },
      b: { type: 'choice', instructions: 'Which team handles this?', criteria: { shipping: null, billing: 'Payments and refunds', support: null } },
      c: { type: 'score', instructions: 'How bad is it?', criteria: ['fine', 'minor', 'serious', 'critical'] },
    });
  });

  it.skipIf(!hasData)('on a sample of jevbench-sample and held-out training cases', async () => {
    const jev = loadCases(path.join(data, 'jevbench-sample')).filter((_, i) => i % 6 === 0);
    const held = loadCases(path.join(data, 'train')).filter((c) => splitOf(c) === 'test').filter((_, i) => i % 40 === 0);
    expect(jev.length + held.length).toBeGreaterThan(10);
    for (const c of [...jev, ...held]) await expectSame(c.state, c.questions as Record<string, unknown>);
    // About 10 s alone; a loaded CI machine (or a parallel test file) takes several times that.
  }, 300_000);

  it('ran the heads and the reader natively on the onnxruntime engine and on tfjs on the wasm one', () => {
    expect(fast.stats().heads?.backend).toBe('onnxruntime-node');
    expect(wasm.stats().heads).toEqual({ backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'the encoder runs on wasm' }, { name: 'tfjs' }] });
    expect(fast.stats().reader?.backend).toBe('onnxruntime-node');
    expect(wasm.stats().reader).toEqual({ backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'the encoder runs on wasm' }, { name: 'tfjs' }] });
  });
});
