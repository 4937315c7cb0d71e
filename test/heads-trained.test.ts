import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { renderQuestion } from '../src/canonical/index.js';
import { BUCKETS, bucketOf, choiceLogits, noulLogits, packTexts, PARAM_SHAPES, prepareState, scoreLogits, type Params, type TextRep } from '../src/heads/late.js';
import { headsFromBytes, validateHeads, type HeadsManifest } from '../src/heads/trained.js';
import { questionTexts } from '../src/heads/texts.js';
import { createHash } from 'node:crypto';

await tf.setBackend('cpu');

function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 2 ** 32 - 0.5;
  };
}

function randomParams(seed: number): Params {
  const r = seeded(seed);
  const p: Params = {};
  for (const [name, shape] of Object.entries(PARAM_SHAPES)) {
    const size = shape.reduce((a, b) => a * b, 1);
    p[name] = tf.tensor(Float32Array.from({ length: size }, () => r() * 0.2), shape);
  }
  return p;
}

function randomText(seed: number, n: number): TextRep {
  const r = seeded(seed);
  const pooled = Float32Array.from({ length: 512 }, () => r());
  const norm = Math.hypot(...pooled);
  return { tokens: Float32Array.from({ length: n * 512 }, () => r()), n, pooled: pooled.map((x) => x / norm) };
}

const params = randomParams(1);
const state = prepareState(params, randomText(2, 40));

describe('late-interaction heads', () => {
  it('choice logits permute with the options (no position dependence)', () => {
    const lines = [3, 4, 5, 6, 7].map((s, i) => randomText(s, 2 + i));
    const a = Array.from(choiceLogits(params, state, packTexts(lines)).dataSync());
    const order = [3, 0, 4, 1, 2];
    const b = Array.from(choiceLogits(params, state, packTexts(order.map((i) => lines[i]!))).dataSync());
    order.forEach((i, j) => expect(b[j]).toBeCloseTo(a[i]!, 4));
  });

  it('score logits reverse with the levels', () => {
    const lines = [11, 12, 13, 14].map((s) => randomText(s, 3));
    const a = Array.from(scoreLogits(params, state, packTexts(lines)).dataSync());
    const b = Array.from(scoreLogits(params, state, packTexts([...lines].reverse())).dataSync());
    a.forEach((x, i) => expect(b[a.length - 1 - i]).toBeCloseTo(x, 4));
  });

  it('noul: swapping criteria negates the criteria term, and no criteria leaves it out', () => {
    const instr = packTexts([randomText(20, 6)]);
    const t = randomText(21, 4);
    const f = randomText(22, 3);
    const empty: TextRep = { tokens: new Float32Array(0), n: 0, pooled: new Float32Array(512) };
    const base = noulLogits(params, state, instr, packTexts([empty, empty]), tf.tensor1d([0])).dataSync()[0]!;
    const withC = noulLogits(params, state, instr, packTexts([t, f]), tf.tensor1d([1])).dataSync()[0]!;
    const swapped = noulLogits(params, state, instr, packTexts([f, t]), tf.tensor1d([1])).dataSync()[0]!;
    const gate = 1 - 1 / (1 + Math.exp(-params.nGate!.dataSync()[0]!));
    expect(withC + swapped).toBeCloseTo(2 * base * gate, 4);
  });

  it('handles texts without tokens and a single option', () => {
    const empty: TextRep = { tokens: new Float32Array(0), n: 0, pooled: new Float32Array(512) };
    const l = Array.from(choiceLogits(params, state, packTexts([empty])).dataSync());
    expect(l).toHaveLength(1);
    expect(Number.isFinite(l[0])).toBe(true);
  });

  it('buckets every option count', () => {
    for (let k = 1; k <= 255; k++) expect(BUCKETS).toContain(bucketOf('choice', k));
    for (let k = 1; k <= 12; k++) expect(BUCKETS).toContain(bucketOf('score', k));
  });
});

describe('question texts', () => {
  it('strips the fixed outcome prefixes', () => {
    expect(questionTexts(renderQuestion({ type: 'choice', instructions: 'Which team?', criteria: { billing: 'refunds', other: null } })).lines).toEqual(['billing: refunds', 'other']);
    expect(questionTexts(renderQuestion({ type: 'score', instructions: 'How?', criteria: ['low', 'high'] })).lines).toEqual(['low', 'high']);
    const noul = questionTexts(renderQuestion({ type: 'noul', instructions: 'Is it late?', criteria: { true: 'after the deadline', false: null } }));
    expect(noul).toEqual({ instructions: 'Is it late?', lines: ['after the deadline', ''] });
  });
});

describe('weight validation at load', () => {
  function build(temps: Record<string, number>, mutate?: (m: HeadsManifest) => void): { manifest: HeadsManifest; bytes: Uint8Array } {
    let offset = 0;
    const entries = Object.entries(PARAM_SHAPES).map(([name, shape]) => {
      const e = { name, shape, offset };
      offset += shape.reduce((a, b) => a * b, 1);
      return e;
    });
    const bytes = new Uint8Array(new Float32Array(offset).buffer);
    const manifest: HeadsManifest = { format: 'evalmodel-heads/1', weights: 'x.bin', sha256: createHash('sha256').update(bytes).digest('hex'), params: entries, temperatures: temps };
    mutate?.(manifest);
    return { manifest, bytes };
  }
  const good = Object.fromEntries(BUCKETS.map((b) => [b, 1]));

  it('accepts a consistent manifest and builds tensors', () => {
    const { manifest, bytes } = build(good);
    const heads = headsFromBytes(manifest, bytes);
    expect(heads.params.proj!.shape).toEqual(PARAM_SHAPES.proj);
  });
  it('rejects a wrong hash, a wrong shape, a missing or absurd temperature', () => {
    const a = build(good, (m) => (m.sha256 = '0'.repeat(64)));
    expect(() => validateHeads(a.manifest, a.bytes)).toThrow(/hash/);
    const b = build(good, (m) => (m.params[0]!.shape = [1, 2]));
    expect(() => validateHeads(b.manifest, b.bytes)).toThrow(/shape/);
    const c = build({ ...good, noul: 0 });
    expect(() => validateHeads(c.manifest, c.bytes)).toThrow(/temperature/);
    const d = build(Object.fromEntries(BUCKETS.slice(1).map((b) => [b, 1])));
    expect(() => validateHeads(d.manifest, d.bytes)).toThrow(/temperature/);
  });
});
