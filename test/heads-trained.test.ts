import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { renderQuestion } from '../src/canonical/index.js';
import { buildBatch } from '../src/heads/batch.js';
import { alignTexts, BUCKETS, bucketOf, forward, PARAM_SHAPES, type Params, type TextRep } from '../src/heads/late.js';
import { headsFromBytes, questionLogits, validateHeads, zeroShotTerm, type HeadsManifest } from '../src/heads/trained.js';
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
const state = randomText(2, 40);
const empty: TextRep = { tokens: new Float32Array(0), n: 0, pooled: new Float32Array(512) };

describe('late-interaction heads', () => {
  it('choice logits permute with the options (no position dependence)', () => {
    const lines = [3, 4, 5, 6, 7].map((s, i) => randomText(s, 2 + i));
    const instr = randomText(8, 5);
    const a = questionLogits(params, state, 'choice', instr, lines);
    const order = [3, 0, 4, 1, 2];
    const b = questionLogits(params, state, 'choice', instr, order.map((i) => lines[i]!));
    order.forEach((i, j) => expect(b[j]).toBeCloseTo(a[i]!, 4));
  });

  it('score logits reverse with the levels', () => {
    const lines = [11, 12, 13, 14].map((s) => randomText(s, 3));
    const instr = randomText(15, 5);
    const a = questionLogits(params, state, 'score', instr, lines);
    const b = questionLogits(params, state, 'score', instr, [...lines].reverse());
    a.forEach((x, i) => expect(b[a.length - 1 - i]).toBeCloseTo(x, 4));
  });

  it('noul: swapping criteria negates the criteria term, and no criteria leaves it out', () => {
    const instr = randomText(20, 6);
    const t = randomText(21, 4);
    const f = randomText(22, 3);
    const base = questionLogits(params, state, 'noul', instr, [empty, empty])[0]!;
    const withC = questionLogits(params, state, 'noul', instr, [t, f])[0]!;
    const swapped = questionLogits(params, state, 'noul', instr, [f, t])[0]!;
    const gate = 1 - 1 / (1 + Math.exp(-params.nGate!.dataSync()[0]!));
    expect(withC + swapped).toBeCloseTo(2 * base * gate, 4);
  });

  it('answers a question the same alone and batched with others', () => {
    const q1 = { type: 'choice' as const, instr: randomText(30, 4), lines: [randomText(31, 3), randomText(32, 2)] };
    const q2 = { type: 'noul' as const, instr: randomText(33, 7), lines: [empty, empty] };
    const align = (q: typeof q1 | typeof q2) => {
      const [i, ...l] = alignTexts(state, [q.instr, ...q.lines]);
      return { type: q.type, instructions: i!, lines: l };
    };
    const alone = questionLogits(params, state, q1.type, q1.instr, q1.lines);
    const together = tf.tidy(() => Array.from(forward(params, buildBatch([align(q2), align(q1)])).choice!.dataSync()));
    alone.forEach((x, i) => expect(15 * Math.tanh(together[i]! / 15)).toBeCloseTo(x, 4));
  });

  it('handles texts without tokens, an empty state and a single option', () => {
    const l = questionLogits(params, empty, 'choice', empty, [empty]);
    expect(l).toHaveLength(1);
    expect(Number.isFinite(l[0])).toBe(true);
  });

  it('buckets every option count', () => {
    for (let k = 1; k <= 255; k++) expect(BUCKETS).toContain(bucketOf('choice', k));
    for (let k = 1; k <= 12; k++) expect(BUCKETS).toContain(bucketOf('score', k));
  });
});

describe('zero-shot term', () => {
  it('is the cosine over 0.05, and yes minus no for noul', () => {
    const s = new Float32Array(512);
    s[0] = 1;
    const a = new Float32Array(512);
    a[0] = 0.5;
    const b = new Float32Array(512);
    b[0] = 0.25;
    expect(zeroShotTerm('choice', s, [a, b])).toEqual([10, 5]);
    expect(zeroShotTerm('noul', s, [a, b])).toEqual([5, 0]);
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
      const e = { name: `m0.${name}`, shape, offset };
      offset += shape.reduce((a, b) => a * b, 1);
      return e;
    });
    const bytes = new Uint8Array(new Float32Array(offset).buffer);
    const manifest: HeadsManifest = { format: 'evalmodel-heads/1', members: 1, weights: 'x.bin', sha256: createHash('sha256').update(bytes).digest('hex'), params: entries, temperatures: temps };
    mutate?.(manifest);
    return { manifest, bytes };
  }
  const good = Object.fromEntries(BUCKETS.map((b) => [b, 1]));

  it('accepts a consistent manifest and builds tensors', () => {
    const { manifest, bytes } = build(good);
    const heads = headsFromBytes(manifest, bytes);
    expect(heads.members[0]!.value!.shape).toEqual(PARAM_SHAPES.value);
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
    const e = build(good, (m) => (m.mix = { choice: -1 }));
    expect(() => validateHeads(e.manifest, e.bytes)).toThrow(/mix/);
    const f = build(good, (m) => (m.mix = { noul: 0.2, choice: 0.15, score: 0 }));
    expect(headsFromBytes(f.manifest, f.bytes).mix).toEqual({ noul: 0.2, choice: 0.15, score: 0 });
  });
});
