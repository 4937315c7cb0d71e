import { existsSync } from 'node:fs';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createTokenizer,
  loadVocabulary,
  vocabularyPath,
  type Tokenizer,
  type Vocabulary,
} from '../src/tokenizer/index.js';

/** The reference tokenizer (`@energetic-ai/embeddings`, a copy of tfjs-models' USE tokenizer). */
function referenceTokenizer(vocabulary: Vocabulary): { encode(text: string): number[] } {
  // The model is never touched by the tokenizer; the reference types scores as plain numbers.
  return new EmbeddingsModel({ model: null as any, vocabulary: vocabulary as any }).tokenizer;
}

/** Deterministic English-like prose of exactly `length` characters. */
function englishText(length: number): string {
  const words = (
    'the of and to in a is that for it as was with be by on not he I this are or his from at which ' +
    'but have an they you were her she there been one all we their has would when if so no will ' +
    'question answer model evaluation sentence encoder student teacher score choice value number ' +
    'because although however meanwhile nevertheless photosynthesis mitochondria Shakespeare London'
  ).split(' ');
  let seed = 12345;
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  let text = '';
  while (text.length < length) {
    const count = 5 + next(15);
    const sentence: string[] = [];
    for (let i = 0; i < count; i++) sentence.push(words[next(words.length)] as string);
    if (next(4) === 0) sentence.push(`${next(2000)}`);
    const first = sentence[0] as string;
    sentence[0] = first.charAt(0).toUpperCase() + first.slice(1);
    text += sentence.join(next(6) === 0 ? ', ' : ' ') + ['. ', '? ', '! ', '; ', ': '][next(5)];
  }
  return text.slice(0, length);
}

const FIXED_SENTENCES: readonly string[] = [
  '',
  ' ',
  '   ',
  'a',
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog.',
  'What is the capital of France? Paris is the capital of France.',
  "It's 12:30 and I've got 3.14159 reasons, e.g. #1, #2 & #3 (100%).",
  'Phone: +1 (555) 010-9999; ratio 3:2; 10:00-12:00; see http://example.com/a?b=c&d=e',
  '{"question": "2+2?", "answer": [4, 4.0, "four"], "ok": true, "none": null}',
  'Spaces   between    words     and  trailing   ',
  '\ttabs\tand\nnewlines\r\nand\u000bother\fcontrols\u0000',
  'Crème brûlée, naïve façade, Ångström, São Paulo, Dvořák, Łódź, ß',
  'e\u0301 versus \u00e9, ﬁ ligature, ①②③, ｆｕｌｌｗｉｄｔｈ, ½, ™, x²',
  '日本語のテキストと中文文本와 한국어',
  'Emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ and more 🙂🙂🙂',
  '<s>',
  '</s>',
  '<s> Hello </s>',
  'extra_token_id_1 extra_token_id_2 extra_token_id_3',
  '▁',
  '▁▁ ▁hello▁world ▁',
  ':',
  '::',
  ':) :( :-) :30 :00 ://',
  ')555 (777 999',
  '\uFFFD unknown replacement \uFFFD\uFFFD',
  '\uD800 lone \uDC00 surrogates \uDBFF',
  '\u00a0non-breaking\u00a0space\u2003em space\u3000ideographic',
  'ALL CAPS SHOUTING AND MiXeD CaSe',
  'Ünïcödé ünïcödé',
  '1234567890 0.001 -42 1e10 1,000,000',
  'a'.repeat(200),
  '€€€ £ ¥ ₹ ₿',
];

describe('tokenizer (USE lite vocabulary)', () => {
  let vocabulary: Vocabulary;
  let tokenizer: Tokenizer;
  let reference: { encode(text: string): number[] };

  beforeAll(async () => {
    vocabulary = await loadVocabulary();
    tokenizer = createTokenizer(vocabulary);
    reference = referenceTokenizer(vocabulary);
  });

  it('loads the 8,000-entry vocabulary from the installed package', async () => {
    expect(existsSync(vocabularyPath())).toBe(true);
    expect(vocabulary).toHaveLength(8000);
    expect(vocabulary[0]).toEqual(['\uFFFD', 0]);
    expect(vocabulary[57]).toEqual([':', null]);
    expect(tokenizer.vocabSize).toBe(8000);
    expect(await loadVocabulary()).toBe(vocabulary);
  });

  it('matches the reference on fixed sentences', () => {
    for (const text of FIXED_SENTENCES) {
      expect(tokenizer.encode(text), JSON.stringify(text)).toEqual(reference.encode(text));
    }
  });

  it('pins a few known segmentations', () => {
    expect(tokenizer.encode('')).toEqual([]);
    expect(tokenizer.encode(' ')).toEqual([30, 30]);
    expect(tokenizer.encode(':')).toEqual([30, 57]); // zero-score rule, not [604] "▁:"
    expect(tokenizer.encode(')555')).toEqual([3208, 4524, 411]); // tie goes to the last candidate
    expect(tokenizer.encode('\t\t\tx')).toEqual([30, 0, 152]); // unknown run merged, then "x"
  });

  it('matches the reference on the fixed sentences joined into one text', () => {
    const text = FIXED_SENTENCES.join(' ');
    expect(tokenizer.encode(text)).toEqual(reference.encode(text));
  });

  const arbitraries: ReadonlyArray<[string, fc.Arbitrary<string>]> = [
    ['fc.string()', fc.string()],
    ['grapheme', fc.string({ unit: 'grapheme', maxLength: 60 })],
    ['grapheme-composite', fc.string({ unit: 'grapheme-composite', maxLength: 60 })],
    ['binary (full unicode)', fc.string({ unit: 'binary', maxLength: 60 })],
    ['binary-ascii', fc.string({ unit: 'binary-ascii', maxLength: 60 })],
    [
      'punctuation and digits',
      fc.string({ unit: fc.constantFrom(...':/.,;-()0123456789 ab▁"\'\t\n<>s'), maxLength: 40 }),
    ],
    [
      'lone surrogates mixed in',
      fc.string({
        unit: fc.oneof(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
          fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
        ),
        maxLength: 30,
      }),
    ],
  ];

  for (const [name, arbitrary] of arbitraries) {
    it(`matches the reference on ${name} (2,000 runs)`, () => {
      fc.assert(
        fc.property(arbitrary, (text) => {
          expect(tokenizer.encode(text)).toEqual(reference.encode(text));
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('matches the reference on concatenated vocabulary pieces (2,000 runs)', () => {
    const piece = fc.integer({ min: 0, max: 7999 }).map((id) => (vocabulary[id] as readonly [string, number | null])[0]);
    const text = fc.array(fc.oneof(piece, piece.map((p) => p.replaceAll('▁', ' '))), { maxLength: 15 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(tokenizer.encode(t)).toEqual(reference.encode(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns only ids in [0, 8000)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (text) => {
        for (const id of tokenizer.encode(text)) {
          expect(Number.isInteger(id) && id >= 0 && id < 8000).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('tokenizes 20,000 characters of English well under 50 ms, identically to the reference', () => {
    const text = englishText(20_000);
    expect(text).toHaveLength(20_000);
    const ids = tokenizer.encode(text); // also warms up the JIT
    expect(ids).toEqual(reference.encode(text));
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const start = performance.now();
      tokenizer.encode(text);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[7] as number;
    console.log(`tokenizer: 20,000 chars -> ${ids.length} ids, median ${median.toFixed(2)} ms over 15 runs`);
    expect(median).toBeLessThan(50);
  });
});

describe('tokenizer on random small vocabularies (reference quirks)', () => {
  // Small alphabets make ties, zero/null/positive scores, duplicates, pieces with no
  // single-character prefix (unreachable positions), astral pieces (UTF-16 backtracking) and
  // a multi-character id-0 piece likely, none of which the USE vocabulary exercises much.
  const alphabet = ['a', 'b', 'c', '▁', '😀', 'é', ':'];
  const score = fc.oneof(
    fc.constantFrom<number | null>(null, 0, -0, -1, -2, -3, 30, -1.5, -0.5),
    fc.double({ min: -20, max: 5, noNaN: true }),
  );
  const piece = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 4 }).map((cs) => cs.join(''));
  const vocabularyArb = fc
    .tuple(
      fc.constantFrom('\uFFFD', '<unk>', '😀', 'x'),
      fc.array(fc.tuple(piece, score), { minLength: 0, maxLength: 40 }),
    )
    .map(([unknown, pieces]): Vocabulary => [
      [unknown, 0],
      ['<s>', 0],
      ['</s>', 0],
      ['a', -1],
      ['b', -1],
      ['▁', -1],
      ...pieces,
    ]);
  const textArb = fc.string({ unit: fc.constantFrom(...alphabet, ' ', 'd', '\t'), maxLength: 25 });

  it('matches the reference (2,000 runs)', () => {
    fc.assert(
      fc.property(vocabularyArb, fc.array(textArb, { minLength: 1, maxLength: 5 }), (vocabulary, texts) => {
        const tokenizer = createTokenizer(vocabulary);
        const reference = referenceTokenizer(vocabulary);
        for (const text of texts) {
          expect(tokenizer.encode(text)).toEqual(reference.encode(text));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
