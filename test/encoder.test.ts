import { beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { initBackend } from '../src/encoder/backend.js';
import { loadEncoderWeights, weightsPackageDir } from '../src/encoder/weights.js';
import { TransformerEncoder } from '../src/encoder/transformer.js';
import { createTokenizer, loadVocabulary, type Tokenizer } from '../src/tokenizer/index.js';

// Sentences of many shapes: short, long (up to the 128-token window), punctuation, numbers,
// accents, CJK and emoji (unknown pieces).
const SENTENCES = [
  'Hello world.',
  'a',
  'The city council of Harlow Bay voted 7-2 on Tuesday night to approve a revised zoning plan.',
  'Is the customer asking for a refund?',
  'I love this movie, it was fantastic!!!',
  'The quick brown fox jumps over the lazy dog. '.repeat(10),
  'Ünïcödé and 漢字 and emoji 😀 in one line',
  '{"order_id": 1234, "status": "shipped", "total": 99.95}',
  'Level 3 of 5: the answer cites every source and explains each step.',
  'no',
];

/** The package's frozen graph, run by tfjs-converter: the reference our implementation must equal. */
async function loadReferenceGraph(): Promise<GraphModel> {
  const dir = weightsPackageDir();
  const modelJson = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8'));
  const group = modelJson.weightsManifest[0];
  const shards = await Promise.all(group.paths.map((p: string) => readFile(path.join(dir, p))));
  const data = Buffer.concat(shards);
  return loadGraphModel(
    tf.io.fromMemory({
      modelTopology: modelJson.modelTopology,
      weightSpecs: group.weights,
      weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
    }),
  );
}

async function referenceEmbedding(graph: GraphModel, ids: number[]): Promise<Float32Array> {
  const indices = tf.tensor2d(ids.map((_, i) => [0, i]), [ids.length, 2], 'int32');
  const values = tf.tensor1d(ids, 'int32');
  const out = (await graph.executeAsync({ indices, values })) as tf.Tensor;
  const data = (await out.data()) as Float32Array;
  tf.dispose([indices, values, out]);
  return data;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

describe('TransformerEncoder', () => {
  let graph: GraphModel;
  let encoder: TransformerEncoder;
  let tokenizer: Tokenizer;

  beforeAll(async () => {
    await initBackend();
    [graph, encoder, tokenizer] = await Promise.all([
      loadReferenceGraph(),
      loadEncoderWeights().then((w) => new TransformerEncoder(w)),
      loadVocabulary().then(createTokenizer),
    ]);
  });

  it('equals the package graph model on every sentence (cosine >= 0.9999)', async () => {
    for (const sentence of SENTENCES) {
      const ids = tokenizer.encode(sentence).slice(0, 128);
      const expected = await referenceEmbedding(graph, ids);
      const got = encoder.embed([ids]);
      const cos = cosine(expected, got.dataSync());
      got.dispose();
      expect(cos, sentence).toBeGreaterThanOrEqual(0.9999);
    }
  });

  it('gives each sequence the same embedding alone and in a padded batch', () => {
    const batch = SENTENCES.map((s) => tokenizer.encode(s).slice(0, 128));
    const together = encoder.embed(batch);
    const rows = together.arraySync();
    batch.forEach((ids, i) => {
      const alone = encoder.embed([ids]);
      expect(cosine(alone.dataSync(), rows[i]!)).toBeGreaterThan(0.99999);
      alone.dispose();
    });
    together.dispose();
  });

  it('gives the same token states bit for bit whatever was encoded before (input tables filled lazily)', async () => {
    const weights = await loadEncoderWeights();
    const fresh = new TransformerEncoder(weights);
    const ids = tokenizer.encode(SENTENCES.join(' ')).slice(0, 100);
    const before = fresh.sequenceSums([ids], { keepStates: true });
    const first = before.states!.dataSync().slice();
    tf.dispose([before.sums, before.states!]);
    // The shared encoder has seen every sentence; a token's table row was computed with others.
    const seen = encoder.sequenceSums([ids], { keepStates: true });
    expect(Array.from(seen.states!.dataSync())).toEqual(Array.from(first));
    tf.dispose([seen.sums, seen.states!]);
    fresh.dispose();
  });

  it('returns unit-length 512-d embeddings and leaks no tensors', () => {
    const before = tf.memory().numTensors;
    const out = encoder.embed([tokenizer.encode('A short sentence.')]);
    expect(out.shape).toEqual([1, 512]);
    const norm = Math.hypot(...out.dataSync());
    expect(norm).toBeCloseTo(1, 5);
    out.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses sequences longer than the 128-token window', () => {
    expect(() => encoder.tokenStates([new Array(129).fill(10)])).toThrow(RangeError);
  });
});
