import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flattenWhitespace } from '../src/canonical/index.js';
import { compare, comparisonFeatures, decode, negationSpans, NEG_WINDOW, parseComparison, parseNumbers, textCues, wordsValue } from '../src/heads/cues.js';
import { createTokenizer, loadVocabulary } from '../src/tokenizer/index.js';

const tokenizer = createTokenizer(await loadVocabulary());
const ids = (text: string) => tokenizer.encode(flattenWhitespace(text));

/** The words of `text` whose tokens the cues mark as negated. */
function negatedWords(text: string): string[] {
  const t = ids(text);
  const cues = textCues(t);
  const { text: back, starts } = decode(t);
  const out: string[] = [];
  for (let i = 0; i < t.length; i++) if (cues.negScope[i]) out.push(back.slice(starts[i], starts[i + 1]));
  return out.join('').trim().split(/\s+/).filter(Boolean);
}

describe('negation scope', () => {
  it('covers the words shortly after a cue, up to a clause boundary', () => {
    expect(negatedWords('there is no temporary workaround that works, but restarting helps')).toEqual(['temporary', 'workaround', 'that', 'works']);
    expect(negatedWords("We haven't changed any settings.")).toEqual(['changed', 'any', 'settings']);
    expect(negatedWords('The refund arrived yesterday')).toEqual([]);
  });

  it('marks the key of a false/null field in structured states', () => {
    expect(negatedWords('receipt: false\namount: 1450')).toEqual(['receipt']);
  });

  it('reads "is it false that" as negating the statement', () => {
    expect(negationSpans('Is it false that the rent was paid?').negated).toBe(true);
    expect(negatedWords('Is it false that the rent was paid?')).toEqual(['that', 'the', 'rent', 'was', 'paid']);
    expect(negationSpans('a false alarm').negated).toBe(false);
  });

  it('does not read "no more than" as a negation', () => {
    expect(negationSpans('no more than 5 seats').negated).toBe(false);
    expect(negationSpans('no longer works').negated).toBe(true);
  });

  it('never covers more than NEG_WINDOW words per cue, and nothing without a cue', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'the', 'plan', 'users');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 20 }), fc.array(word, { maxLength: 20 }), (a, b) => {
        expect(negationSpans([...a, ...b].join(' ')).spans).toEqual([]);
        const spans = negationSpans([...a, 'not', ...b].join(' ')).spans;
        expect(spans.length).toBe(Math.min(NEG_WINDOW, b.length));
      }),
    );
  });

  it('gives one flag per token and the text-level flag', () => {
    const t = ids('I did not pay');
    expect(textCues(t).negScope.length).toBe(t.length);
    expect(textCues(t).negated).toBe(1);
    expect(textCues(ids('I paid')).negated).toBe(0);
  });
});

describe('numbers', () => {
  it('parses digits, separators, currency, decimals, scales and number words', () => {
    const values = (s: string) => parseNumbers(s).map((n) => n.value);
    expect(values('Sixty of our users, $1,450.50 and 12% off, 5k views')).toEqual([60, 1450.5, 12, 5000]);
    expect(values('two hundred and ten seats, a dozen eggs, twenty-five')).toEqual([210, 12, 25]);
  });

  it('skips dates, ids and times', () => {
    expect(parseNumbers('ORD-58213 placed 2024-03-04 at 10:30')).toEqual([]);
  });

  it('reads every integer written in digits back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (n) => {
        expect(parseNumbers(`about ${n} items`).map((x) => x.value)).toEqual([n]);
        expect(parseNumbers(`about ${n.toLocaleString('en-US')} items`).map((x) => x.value)).toEqual([n]);
      }),
    );
  });

  it('values number words', () => {
    expect(wordsValue('sixty')).toBe(60);
    expect(wordsValue('three thousand two hundred')).toBe(3200);
    expect(wordsValue('nineteen')).toBe(19);
  });
});

describe('comparisons', () => {
  it('reads the operator and threshold', () => {
    const c = (s: string) => {
      const r = parseComparison(s);
      return r && [r.op, r.value];
    };
    expect(c('Does the account have more than 50 user seats?')).toEqual(['gt', 50]);
    expect(c('Is the order total under $70?')).toEqual(['lt', 70]);
    expect(c('at least five attendees')).toEqual(['ge', 5]);
    expect(c('no more than 3 refunds')).toEqual(['le', 3]);
    expect(c('10 or more days late')).toEqual(['ge', 10]);
    expect(c('Is the customer on the enterprise plan?')).toBeNull();
  });

  it('compares consistently: a value satisfies exactly one of gt / le', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: -1e6, max: 1e6, noNaN: true }), (x, t) => {
        expect(compare(x, { op: 'gt', value: t })).toBe(-compare(x, { op: 'le', value: t }));
        expect(compare(x, { op: 'lt', value: t })).toBe(-compare(x, { op: 'ge', value: t }));
      }),
    );
  });

  it('checks the threshold against the state number closest to where the question aligns', () => {
    const question = textCues(ids('more than 50 users'));
    const state = textCues(ids('order 7 shipped. Sixty users on our plan'));
    // Question tokens: "more than 50" (the comparison), then "users", aligned to the state's "users".
    const usersAt = decode(ids('order 7 shipped. Sixty users on our plan')).starts.length - 4;
    const n = ids('more than 50 users').length;
    const best = new Float32Array(n).fill(0);
    const argmax = new Int32Array(n).fill(0);
    best[n - 1] = 0.9;
    argmax[n - 1] = usersAt;
    const [has, top] = comparisonFeatures(question, state, best, argmax);
    expect(has).toBe(1);
    expect(top).toBe(1);
    expect(comparisonFeatures(textCues(ids('users')), state, best, argmax)).toEqual([0, 0, 0]);
    expect(comparisonFeatures(question, textCues(ids('no numbers here')), best, argmax)).toEqual([1, 0, 0]);
  });
});
