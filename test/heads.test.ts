import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { choiceAnswer, noulAnswer, scoreAnswer, softmax } from '../src/heads/answers.js';
import { argmax, choiceConfidence, scoreConfidence } from '../src/heads/confidence.js';

const logits = (min: number, max: number) => fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: min, maxLength: max });
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('softmax', () => {
  it('gives a distribution summing to 1 within 1e-9', () => {
    fc.assert(fc.property(logits(1, 255), (l) => {
      const p = softmax(l);
      expect(Math.abs(sum(p) - 1)).toBeLessThan(1e-9);
      p.forEach((x) => expect(x).toBeGreaterThanOrEqual(0));
    }));
  });
  it('is stable for huge logits', () => {
    expect(softmax([1e6, 1e6 - 1])[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
  });
});

describe('choice answers', () => {
  it('choice is the argmax of probabilities, ties to the earlier option, confidence in [0,1]', () => {
    fc.assert(fc.property(logits(1, 255), (l) => {
      const options = l.map((_, i) => `opt ${i}`);
      const p = softmax(l);
      const a = choiceAnswer(options, p);
      expect(Object.keys(a.probabilities)).toEqual(options);
      const max = Math.max(...p);
      expect(a.choice).toBe(options[p.indexOf(max)]);
      expect(a.confidence).toBeGreaterThanOrEqual(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
    }));
  });
  it('confidence is 0 for uniform and 1 for one-hot', () => {
    expect(choiceConfidence([0.25, 0.25, 0.25, 0.25])).toBeCloseTo(0, 12);
    expect(choiceConfidence([0, 1, 0])).toBe(1);
    expect(choiceConfidence([1])).toBe(1);
    expect(choiceConfidence([0.5, 0.3, 0.2])).toBeCloseTo((0.5 - 1 / 3) / (2 / 3), 12);
  });
  it('keeps option names such as __proto__ as own keys', () => {
    const a = choiceAnswer(['__proto__', 'constructor'], [0.7, 0.3]);
    expect(Object.keys(a.probabilities)).toEqual(['__proto__', 'constructor']);
    expect(a.choice).toBe('__proto__');
    expect(JSON.parse(JSON.stringify(a)).probabilities.__proto__).toBe(0.7);
  });
  it('breaks exact ties by option order', () => {
    expect(argmax([0.4, 0.4, 0.2])).toBe(0);
    expect(choiceAnswer(['b', 'a'], [0.5, 0.5]).choice).toBe('b');
  });
});

describe('score answers', () => {
  it('score is the probability-weighted mean of levels within 1e-9, keys "0".."n-1"', () => {
    fc.assert(fc.property(logits(1, 10), (l) => {
      const levels = l.map((_, i) => `level ${i}`);
      const p = softmax(l);
      const a = scoreAnswer(levels, p);
      const keys = levels.map((_, i) => String(i));
      expect(Object.keys(a.legend)).toEqual(keys);
      expect(Object.keys(a.probabilities)).toEqual(keys);
      expect(Math.abs(a.score - p.reduce((s, x, i) => s + i * x, 0))).toBeLessThan(1e-9);
      expect(a.score).toBeGreaterThanOrEqual(0);
      expect(a.score).toBeLessThanOrEqual(levels.length - 1 + 1e-9);
      expect(a.confidence).toBeGreaterThanOrEqual(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
    }));
  });
  it('confidence follows 1 - sum p_i |i - m| / MAD, clipped', () => {
    // k = 3: MAD = (1 + 0 + 1) / 3 = 2/3; m = 1; spread = 0.25 + 0.25 = 0.5 -> 1 - 0.75 = 0.25
    expect(scoreConfidence([0.25, 0.5, 0.25])).toBeCloseTo(0.25, 12);
    expect(scoreConfidence([0, 0, 1])).toBe(1);
    expect(scoreConfidence([0.5, 0, 0.5])).toBe(0); // 1 - 1/(2/3) < 0, clipped
    expect(scoreConfidence([1])).toBe(1);
  });
  it('legend maps each level to its description, objects included', () => {
    const a = scoreAnswer(['low', { text: 'mid' }, ['high', 'very']], [0.2, 0.3, 0.5]);
    expect(a.legend).toEqual({ '0': 'low', '1': { text: 'mid' }, '2': ['high', 'very'] });
  });
});

describe('noul answers', () => {
  it('is a probability in [0,1] with no confidence field', () => {
    fc.assert(fc.property(fc.double({ min: -0.1, max: 1.1, noNaN: true }), (p) => {
      const a = noulAnswer(p);
      expect(a.noul).toBeGreaterThanOrEqual(0);
      expect(a.noul).toBeLessThanOrEqual(1);
      expect(Object.keys(a).sort()).toEqual(['noul', 'type']);
    }));
  });
});
