/**
 * The trained heads on onnxruntime-node (heads/native/) against their tfjs path on the wasm
 * backend: the shipped heads' logits on generated batches (every question type, empty texts,
 * criteria, field pairs, long states cut into several runs) within 1e-4; the same bits for a
 * question alone and in a batch; the self-test that guards serving, and the fallback. Skipped
 * (with the reason printed) where onnxruntime-node is not installed, e.g. after
 * `npm install --omit=optional`.
 */
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/encoder/backend.js';
import { loadOnnxRuntime } from '../src/onnx/runtime.js';
import type { TextRep } from '../src/heads/late.js';
import { headsBackendFor, headsSelfTest } from '../src/heads/native/backend.js';
import { OnnxHeads } from '../src/heads/native/runner.js';
import { CHUNK_CELLS, requestLogits, type QuestionInput } from '../src/heads/request-logits.js';
import { alignPadding } from '../src/heads/native/align-graph.js';
import { loadHeads, type TrainedHeads } from '../src/heads/trained.js';
import { defaultManifestPath } from '../src/registry/index.js';
import { text } from './random-text.js';

const native = await loadOnnxRuntime().then(
  () => null,
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
if (native) console.warn(`test/heads-onnx.test.ts skipped: onnxruntime-node does not load here (${native})`);

/** Raw logits lie within ±15 (choice, score bounded) and about ±20 (noul); both paths compute in float32. */
const TOLERANCE = 1e-4;

const questionArb = (maxInstr: number, maxLine: number): fc.Arbitrary<QuestionInput> =>
  fc
    .record({
      type: fc.constantFrom('noul' as const, 'choice' as const, 'score' as const),
      seed: fc.integer({ min: 1, max: 1e6 }),
      instr: fc.integer({ min: 0, max: maxInstr }),
      lines: fc.array(fc.integer({ min: 0, max: maxLine }), { minLength: 1, maxLength: 9 }),
      pair: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null }),
    })
    .map(({ type, seed, instr, lines, pair }) => ({
      type,
      instructions: text(seed, instr),
      lines: (type === 'noul' ? [lines[0]!, lines[1] ?? 0] : lines).map((n, i) => text(seed * 31 + i + 1, n)),
      pair: type === 'noul' ? null : pair,
    }));
const stateArb: fc.Arbitrary<TextRep> = fc
  .oneof({ arbitrary: fc.integer({ min: 0, max: 60 }), weight: 4 }, { arbitrary: fc.integer({ min: 61, max: 1200 }), weight: 1 })
  .chain((n) => fc.integer({ min: 1, max: 1e5 }).map((seed) => text(seed * 7 + 3, n)));

function worst(a: readonly number[][], b: readonly number[][]): number {
  expect(a.map((x) => x.length)).toEqual(b.map((x) => x.length));
  return Math.max(0, ...a.flatMap((x, i) => x.map((v, j) => Math.abs(v - b[i]![j]!))));
}

describe.skipIf(native !== null)('trained heads on onnxruntime-node (parity with tfjs-wasm)', () => {
  let heads: TrainedHeads;
  let ort: OnnxHeads;
  beforeAll(async () => {
    await initBackend('wasm');
    heads = loadHeads({ kind: 'late-interaction', manifest: 'heads-1.13.0.json' }, path.dirname(defaultManifestPath()));
    ort = await OnnxHeads.create(heads.members);
  });
  afterAll(() => ort?.dispose());

  it('logits equal the tfjs heads within 1e-4 on generated batches', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, fc.array(questionArb(40, 12), { minLength: 1, maxLength: 8 }), async (state, questions) => {
        expect(worst(await ort.logits(state, questions), requestLogits(heads.members, state, questions))).toBeLessThanOrEqual(TOLERANCE);
      }),
      { numRuns: 40, seed: 21 },
    );
  }, 120_000);

  it('a question gets the same bits alone as in a batch with others', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, fc.array(questionArb(200, 60), { minLength: 2, maxLength: 6 }), async (state, questions) => {
        const together = await ort.logits(state, questions);
        for (const [i, q] of questions.entries()) expect(await ort.logits(state, [q])).toEqual([together[i]]);
      }),
      { numRuns: 20, seed: 23 },
    );
  }, 120_000);

  it('a long state is aligned in several runs with the same results', async () => {
    const state = text(5, 3000);
    const many = Array.from({ length: 6 }, (_, i): QuestionInput => ({ type: 'score', instructions: text(100 + i, 90), lines: [text(200 + i, 40), text(300 + i, 5), text(400 + i, 0)] }));
    // A question of 1,600 tokens against 3,000 state tokens: past one run's similarity cells, so its rows go in two runs.
    many.push({ type: 'choice', instructions: text(7, 1600), lines: [text(8, 3), text(9, 2)] });
    expect(1605 * alignPadding(state.n, 499)).toBeGreaterThan(CHUNK_CELLS);
    const batched = await ort.logits(state, many);
    expect(worst(batched, requestLogits(heads.members, state, many))).toBeLessThanOrEqual(TOLERANCE);
    for (const [i, q] of many.entries()) expect(await ort.logits(state, [q])).toEqual([batched[i]]);
  }, 120_000);

  it('its self-test passes, and rejects logits that are off', async () => {
    await expect(headsSelfTest(heads.members, (s, q) => ort.logits(s, q))).resolves.toBeUndefined();
    const skewed = async (s: TextRep, q: readonly QuestionInput[]) => (await ort.logits(s, q)).map((l, i) => (i === 1 ? l.map((v) => v + 0.01) : l));
    await expect(headsSelfTest(heads.members, skewed)).rejects.toThrow(/self-test failed: logits differ/);
  });

  it('serves on onnxruntime-node only beside the native encoder, and says why not otherwise', async () => {
    const chosen = await headsBackendFor(heads, 'onnxruntime-node');
    expect(chosen.report).toEqual({ backend: 'onnxruntime-node', tried: [{ name: 'onnxruntime-node' }] });
    expect(chosen.runner).not.toBeNull();
    const wasm = await headsBackendFor(heads, 'wasm');
    expect(wasm.runner).toBeNull();
    expect(wasm.report).toEqual({ backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'the encoder runs on wasm' }, { name: 'tfjs' }] });
    const missing = await headsBackendFor(heads, 'onnxruntime-node', { module: 'onnxruntime-node-not-installed' });
    expect(missing.runner).toBeNull();
    expect(missing.report.tried[0]!.error).toMatch(/onnxruntime-node-not-installed/);
  });
});
