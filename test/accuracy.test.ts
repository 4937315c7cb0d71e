import { describe, expect, it } from 'vitest';
import { brier, ece, itemScore, percentile, spearman, summarise } from '../bench/accuracy/metrics.js';
import { parseCommandLine, USAGE } from '../bench/accuracy/run.js';
import { countPairs, formatCompare, isRight, matchQuestions, round4, signTest, toJson, type QuestionRecord } from '../bench/accuracy/compare.js';
import type { BenchResult } from '../bench/accuracy/run.js';

describe('accuracy metrics (JevBench rule)', () => {
  it('scores the top option 1 and a k-way tie 1/k', () => {
    expect(itemScore([0.7, 0.3], 0)).toBe(1);
    expect(itemScore([0.7, 0.3], 1)).toBe(0);
    expect(itemScore([0.5, 0.5], 1)).toBe(0.5);
    expect(itemScore([0.3, 0.3, 0.3, 0.1], 2)).toBeCloseTo(1 / 3, 12);
    expect(itemScore([0.3, 0.3, 0.3, 0.1], 3)).toBe(0);
  });
  it('Brier, ECE, Spearman and percentiles', () => {
    expect(brier([1, 0], 0)).toBe(0);
    expect(brier([0.5, 0.5], 0)).toBe(0.5);
    expect(ece([{ conf: 0.9, correct: 1 }, { conf: 0.9, correct: 0 }])).toBeCloseTo(0.4, 12);
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
  });
  it('summarises with a uniform reference', () => {
    const s = summarise([
      { type: 'noul', probs: [0.8, 0.2], gold: 0 },
      { type: 'noul', probs: [0.5, 0.5], gold: 1 },
    ]);
    expect(s.accuracy).toBeCloseTo(0.75, 12);
    expect(s.uniform).toBeCloseTo(0.5, 12);
    expect(s.goldProb).toBeCloseTo(0.65, 12);
  });
});

describe('accuracy results: per-question answers and --compare', () => {
  const rec = (c: string, q: string, gold: number, p: number[], type: QuestionRecord['type'] = 'noul'): QuestionRecord => ({ file: 'f.jsonl', case: c, q, type, gold, p });
  const result = (questions: QuestionRecord[]): BenchResult => {
    const s = summarise(questions.map((r) => ({ type: r.type, probs: r.p, gold: r.gold })));
    return { label: 'x', model: 'm', inputs: [], cases: 1, machine: 'test', backend: 'cpu', date: 'd', byType: { noul: s }, pooled: s, byFile: {}, latencyMs: { p50: 1, p95: 2, perQuestionMean: 1 }, questions };
  };

  it('writes one record a line and reads back the same result', () => {
    const r = result([rec('c1', 'a', 0, [0.7, 0.3]), rec('c1', 'b', 1, [0.2, 0.8])]);
    const text = toJson(r);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(r)));
    expect(text).toContain('\n    {"file":"f.jsonl","case":"c1","q":"a","type":"noul","gold":0,"p":[0.7,0.3]}');
    expect(round4(0.123456)).toBe(0.1235);
  });

  it('matches questions by file, case and question id and counts agreement', () => {
    const a = [rec('c1', 'a', 0, [0.7, 0.3]), rec('c1', 'b', 0, [0.7, 0.3]), rec('c2', 'a', 0, [0.2, 0.8]), rec('c2', 'b', 0, [0.2, 0.8]), rec('c3', 'x', 0, [0.5, 0.5])];
    const b = [rec('c2', 'b', 0, [0.9, 0.1]), rec('c2', 'a', 0, [0.4, 0.6]), rec('c1', 'b', 0, [0.1, 0.9]), rec('c1', 'a', 0, [0.6, 0.4]), rec('c4', 'y', 1, [0.5, 0.5])];
    const m = matchQuestions(a, b);
    expect(m.pairs.length).toBe(4);
    expect([m.onlyInA, m.onlyInB, m.goldDiffers]).toEqual([1, 1, 0]);
    expect(countPairs(m.pairs)).toEqual({ n: 4, both: 1, onlyA: 1, onlyB: 1, neither: 1 });
    // A changed gold under the same ids is left out, not compared.
    expect(matchQuestions([rec('c1', 'a', 0, [0.7, 0.3])], [rec('c1', 'a', 1, [0.7, 0.3])]).goldDiffers).toBe(1);
    // A tie at the top is not right.
    expect(isRight(rec('c', 'q', 0, [0.5, 0.5]))).toBe(false);
  });

  it('the sign test is exact and two-sided', () => {
    expect(signTest(0, 0)).toBe(1);
    expect(signTest(5, 5)).toBe(1);
    expect(signTest(0, 5)).toBeCloseTo(2 / 32, 12);
    expect(signTest(9, 1)).toBeCloseTo((2 * 11) / 1024, 12);
    expect(signTest(1500, 1400)).toBeGreaterThan(0.05);
    expect(signTest(1600, 1300)).toBeLessThan(1e-3);
  });

  it('prints the summary rows, the per-question counts and the biggest disagreements', () => {
    const a = result([rec('c1', 'a', 0, [0.9, 0.1]), rec('c1', 'b', 0, [0.2, 0.8]), rec('c2', 's', 2, [0.1, 0.2, 0.7], 'score')]);
    const b = result([rec('c1', 'a', 0, [0.3, 0.7]), rec('c1', 'b', 0, [0.6, 0.4]), rec('c2', 's', 2, [0.1, 0.2, 0.7], 'score')]);
    const out = formatCompare(a, b, 3);
    expect(out).toMatch(/^noul\s+accuracy/m);
    expect(out).toMatch(/^noul\s+2\s+0\s+1\s+1\s+0\s/m);
    expect(out).toMatch(/^score\s+1\s+1\s+0\s+0\s+0\s/m);
    expect(out).toMatch(/only A right \(1\):\n  f\.jsonl c1 a  noul gold 0  A \[0\.90 0\.10\] -> B \[0\.30 0\.70\]  \(gold -0\.60\)/);
    expect(out).toMatch(/only B right \(1\):\n  f\.jsonl c1 b /);
    const { questions: _, ...old } = a;
    expect(formatCompare(old, b)).toContain('A was written without per-question answers');
  });
});

describe('the accuracy bench command line', () => {
  it('reads its options and inputs, and answers an unknown option with the option and the usage instead of a stack trace', () => {
    const ok = parseCommandLine(['cases.jsonl', '--split', 'test', '--no-consistency']);
    expect('error' in ok).toBe(false);
    if (!('error' in ok)) {
      expect(ok.positionals).toEqual(['cases.jsonl']);
      expect(ok.values.split).toBe('test');
      expect(ok.values['no-consistency']).toBe(true);
    }
    const bad = parseCommandLine(['--splt', 'test']);
    expect(bad).toEqual({ error: expect.stringContaining("Unknown option '--splt'.") });
    expect('error' in bad && bad.error.endsWith(USAGE)).toBe(true);
    expect(USAGE).toContain('--compare');
  });
});
