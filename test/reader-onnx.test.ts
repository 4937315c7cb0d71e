/**
 * The reader on onnxruntime-node (reader/onnx-graph.ts) against its tfjs forward pass on the
 * wasm backend: the shipped reader's logits and corrected probabilities on generated batches
 * (noul with and without criteria, choice and score of 2..N outcomes, empty texts, long states)
 * within 1e-4 (also with the ordinal score term's parameters set at random, as the shipped
 * weights hold them at zero), the self-test that guards serving, and the fallback. Skipped (with the reason
 * printed) where onnxruntime-node is not installed, e.g. after `npm install --omit=optional`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/encoder/backend.js';
import { loadOnnxRuntime } from '../src/onnx/runtime.js';
import * as tf from '@tensorflow/tfjs-core';
import { FIELD_PAIR, INPUT, ORDINAL } from '../src/heads/reader/architecture.js';
import type { ReaderQuestion, ReaderText } from '../src/heads/reader/batch.js';
import { baseOf, correctAnswers, correctAnswersWith, type AnsweredQuestion } from '../src/heads/reader/correct.js';
import { readerFor } from '../src/heads/reader/load.js';
import { readerLogits, type LoadedReader } from '../src/heads/reader/logits.js';
import { readerBackendFor, readerSelfTest } from '../src/heads/reader/native.js';
import { OnnxReader } from '../src/heads/reader/onnx-runner.js';

const native = await loadOnnxRuntime().then(
  () => null,
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
if (native) console.warn(`test/reader-onnx.test.ts skipped: onnxruntime-node does not load here (${native})`);

/** Logits lie in ±15 and probabilities in [0, 1]; both paths compute in float32. */
const TOLERANCE = 1e-4;

const weightsDir = path.resolve(import.meta.dirname, '../weights');
const manifest = JSON.parse(readFileSync(path.join(weightsDir, 'manifest.json'), 'utf8')) as { models: Record<string, { heads?: { reader?: string } }> };
/** The shipped reader (the registry's `heads.reader`). */
const readerName = Object.values(manifest.models).map((m) => m.heads?.reader).find((r): r is string => typeof r === 'string');

/** Token states like the encoder's (norms of about 20) and ids from a small vocabulary, so exact matches occur. */
function text(n: number, seed: number): ReaderText {
  const tokens = Float32Array.from({ length: n * INPUT }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) * 0.9 + Math.cos(seed + i * 0.013));
  return { tokens, n, ids: Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 29) };
}

const textArb = (max: number) => fc.record({ n: fc.integer({ min: 0, max }), seed: fc.integer({ min: 1, max: 5000 }) }).map(({ n, seed }) => text(n, seed));
const probability = fc.double({ min: 0.001, max: 0.999, noNaN: true });
const outcomes = (n: number) => fc.array(probability, { minLength: n, maxLength: n }).map((p) => p.map((v) => v / p.reduce((a, b) => a + b, 0)));

/** Questions of every type; texts of up to `long` tokens (instructions) or a third of it (outcome lines). */
const answeredOf = (long: number): fc.Arbitrary<AnsweredQuestion> =>
  fc.oneof(
    fc.record({ type: fc.constant('noul' as const), instructions: textArb(long), lines: fc.constant([text(0, 1), text(0, 2)]), probabilities: probability.map((p) => [p]) }),
    fc.record({ type: fc.constant('noul' as const), instructions: textArb(long), lines: fc.tuple(textArb(long / 3), textArb(long / 3)).map((t) => [...t]), probabilities: probability.map((p) => [p]) }),
    ...(['choice', 'score'] as const).map((type) =>
      fc.integer({ min: 2, max: 9 }).chain((n) =>
        fc.record(
          { type: fc.constant(type), instructions: textArb(long), lines: fc.array(textArb(long / 3), { minLength: n, maxLength: n }), probabilities: outcomes(n), fieldPair: fc.double({ min: -0.2, max: 1, noNaN: true }) },
          { requiredKeys: ['type', 'instructions', 'lines', 'probabilities'] },
        ),
      ),
    ),
  );
const answeredArb = answeredOf(12);
/** Sometimes hundreds of rows per text, past the blocks in which onnxruntime's products sum. */
const mixedArb = fc.oneof({ arbitrary: answeredOf(12), weight: 3 }, { arbitrary: answeredOf(360), weight: 1 });
/** Mostly short states, sometimes empty or long (several of the encoder's windows). */
const stateArb = fc.oneof({ arbitrary: textArb(40), weight: 4 }, { arbitrary: textArb(700), weight: 1 });

/** The reader's inputs: the heads' probabilities as its base log-probabilities (as correct.ts' `baseOf`). */
function withBase(questions: readonly AnsweredQuestion[]): ReaderQuestion[] {
  return questions.map(({ probabilities, ...q }) => ({ ...q, base: baseOf(q.type, probabilities) }));
}

function worst(a: readonly number[][], b: readonly number[][]): number {
  expect(a.map((x) => x.length)).toEqual(b.map((x) => x.length));
  return Math.max(0, ...a.flatMap((x, i) => x.map((v, j) => Math.abs(v - b[i]![j]!))));
}

describe.skipIf(native !== null || !readerName)('reader on onnxruntime-node (parity with tfjs-wasm)', () => {
  let reader: LoadedReader;
  let ort: OnnxReader;
  /** The shipped reader with the ordinal and field-pair terms' parameters at random (nonzero), on both backends. */
  let ordinal: { reader: LoadedReader; ort: OnnxReader };
  beforeAll(async () => {
    await initBackend('wasm');
    reader = readerFor(readerName!, weightsDir);
    ort = await OnnxReader.create(reader);
    // At the scale of the trained readouts' matching layers (h like score's, s like noul's).
    const like: Record<string, string> = { 'ord.h.w1': 'score.w1', 'ord.h.b1': 'score.b1', 'ord.h.w2': 'score.w2', 'ord.s.w1': 'noul.w1', 'ord.s.b1': 'noul.b1', 'ord.s.w2': 'noul.w2', 'ord.s.b2': 'noul.b2' };
    // The field-pair term's likewise (g like score's, its coefficients like score's last layer).
    Object.assign(like, { 'pair.g.w1': 'score.w1', 'pair.g.b1': 'score.b1', 'pair.g.w2': 'score.w2', 'pair.choice': 'score.w2', 'pair.score': 'score.w2' });
    const deviation = (t: tf.Tensor) => Math.max(0.01, Math.sqrt(tf.moments(t).variance.dataSync()[0]! + tf.moments(t).mean.dataSync()[0]! ** 2));
    let seed = 90;
    const members = reader.members.map((p) =>
      Object.fromEntries(Object.entries(p).map(([n, v]) => [n, n.startsWith(ORDINAL) || n.startsWith(FIELD_PAIR) ? tf.keep(tf.randomNormal(v.shape, 0, deviation(p[like[n]!]!), 'float32', seed++)) : v])),
    );
    const withTerm = { ...reader, members };
    ordinal = { reader: withTerm, ort: await OnnxReader.create(withTerm) };
  });
  afterAll(() => {
    ort?.dispose();
    ordinal?.ort.dispose();
  });

  it('logits and corrected probabilities equal the tfjs reader within 1e-4 on generated batches', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, fc.array(answeredArb, { minLength: 1, maxLength: 7 }), async (state, questions) => {
        const inputs = withBase(questions);
        for (const [r, o] of [[reader, ort], [ordinal.reader, ordinal.ort]] as const) {
          expect(worst(await o.logits(state, inputs), readerLogits(r, state, inputs))).toBeLessThanOrEqual(TOLERANCE);
          const want = correctAnswers(r, state, questions);
          const got = await correctAnswersWith(r, (s, q) => o.logits(s, q), state, questions);
          expect(worst(got, want)).toBeLessThanOrEqual(TOLERANCE);
        }
      }),
      { numRuns: 40, seed: 15 },
    );
    // Two backends on up to seven questions, 40 times: minutes on a loaded 2-core machine.
  }, 300_000);

  it('a question gets the same bits alone as in a batch with others (answers never depend on other questions)', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, fc.array(mixedArb, { minLength: 2, maxLength: 6 }), async (state, answered) => {
        const questions = withBase(answered);
        for (const o of [ort, ordinal.ort]) {
          const together = await o.logits(state, questions);
          for (const [i, q] of questions.entries()) expect(await o.logits(state, [q])).toEqual([together[i]]);
        }
      }),
      { numRuns: 15, seed: 17 },
    );
  }, 120_000);

  it('its self-test passes, and rejects logits that are off', async () => {
    await expect(readerSelfTest(reader, (s, q) => ort.logits(s, q))).resolves.toBeUndefined();
    await expect(readerSelfTest(ordinal.reader, (s, q) => ordinal.ort.logits(s, q))).resolves.toBeUndefined();
    // The probe has score questions, so a native graph that lost the term fails the self-test.
    await expect(readerSelfTest(ordinal.reader, (s, q) => ort.logits(s, q))).rejects.toThrow(/self-test failed/);
    const skewed = async (s: ReaderText, q: readonly ReaderQuestion[]) => (await ort.logits(s, q)).map((l, i) => (i === 2 ? l.map((v) => v + 0.01) : l));
    await expect(readerSelfTest(reader, skewed)).rejects.toThrow(/self-test failed: logits differ/);
  });

  it('serves on onnxruntime-node only beside the native encoder, and says why not otherwise', async () => {
    const chosen = await readerBackendFor(reader, 'onnxruntime-node');
    expect(chosen.report).toEqual({ backend: 'onnxruntime-node', tried: [{ name: 'onnxruntime-node' }] });
    expect(chosen.runner).not.toBeNull();
    const wasm = await readerBackendFor(reader, 'wasm');
    expect(wasm.runner).toBeNull();
    expect(wasm.report.backend).toBe('tfjs');
    expect(wasm.report.tried[0]).toEqual({ name: 'onnxruntime-node', error: 'the encoder runs on wasm' });
    const missing = await readerBackendFor(reader, 'onnxruntime-node', { module: 'onnxruntime-node-not-installed' });
    expect(missing.runner).toBeNull();
    expect(missing.report.tried[0]!.error).toMatch(/onnxruntime-node-not-installed/);
  });
});
