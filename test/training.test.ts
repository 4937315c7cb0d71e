import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibHalf, dataDir, goldIndex, loadCases, rng, shuffled, splitOf } from '../src/training/data.js';
import { BUCKETS } from '../src/heads/late.js';
import { loadHeads } from '../src/heads/trained.js';
import { readFileSync } from 'node:fs';
import { met } from './prerequisites.js';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';

await tf.setBackend('cpu');

const data = dataDir();
// When absent, test/report-skips.ts says so before the run (one line, with the reason).
const hasData = met('training');

describe('training utilities', () => {
  it('splits by case, deterministically, about 10/10/80', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => ({ file: 'f.jsonl', id: `c-${i}` }));
    const a = ids.map(splitOf);
    expect(ids.map(splitOf)).toEqual(a);
    const test = a.filter((s) => s === 'test').length;
    const calib = a.filter((s) => s === 'calib').length;
    expect(test).toBeGreaterThan(140);
    expect(test).toBeLessThan(260);
    expect(calib).toBeGreaterThan(140);
    expect(calib).toBeLessThan(260);
  });
  it('halves the calibration split deterministically, independently of the split itself', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => ({ file: 'f.jsonl', id: `c-${i}` }));
    const calib = ids.filter((c) => splitOf(c) === 'calib');
    const halves = calib.map(calibHalf);
    expect(calib.map(calibHalf)).toEqual(halves);
    const stop = halves.filter((h) => h === 'stop').length;
    expect(stop / calib.length).toBeGreaterThan(0.4);
    expect(stop / calib.length).toBeLessThan(0.6);
  });
  it('maps gold answers to outcome indices', () => {
    expect(goldIndex({ type: 'noul', instructions: 'x' }, true)).toBe(0);
    expect(goldIndex({ type: 'noul', instructions: 'x' }, false)).toBe(1);
    expect(goldIndex({ type: 'choice', instructions: 'x', criteria: { a: null, b: null } }, 'b')).toBe(1);
    expect(goldIndex({ type: 'score', instructions: 'x', criteria: ['l', 'h'] }, 1)).toBe(1);
  });
  it('seeded shuffles are reproducible', () => {
    expect(shuffled([1, 2, 3, 4, 5], rng(3))).toEqual(shuffled([1, 2, 3, 4, 5], rng(3)));
  });
  it('the shipped heads load, validate and carry a temperature per bucket', () => {
    const weights = path.resolve(import.meta.dirname, '../weights');
    const registry = JSON.parse(readFileSync(path.join(weights, 'manifest.json'), 'utf8'));
    const spec = registry.models['evalmodel-1.13.0'].heads;
    expect(spec.kind).toBe('late-interaction');
    const heads = loadHeads(spec, weights);
    for (const b of BUCKETS) expect(heads.temperatures[b]).toBeGreaterThan(0);
  });
});

describe.skipIf(!hasData)('training data (needs ../shared/data)', () => {
  it('every training case has gold answers that index its outcomes', () => {
    const cases = loadCases(path.join(data, 'train'));
    expect(cases.length).toBeGreaterThan(1000);
    for (const c of cases.slice(0, 300)) {
      for (const [qid, g] of Object.entries(c.gold)) expect(goldIndex(c.questions[qid]!, g)).toBeGreaterThanOrEqual(0);
    }
  });
  it('jevbench-sample loads with its separate gold, skipping unknown answers', () => {
    const cases = loadCases(path.join(data, 'jevbench-sample'));
    expect(cases).toHaveLength(48);
    const known = cases.reduce((s, c) => s + Object.keys(c.gold).length, 0);
    expect(known).toBe(433);
  });
});
