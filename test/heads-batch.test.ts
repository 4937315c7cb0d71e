// The trained heads answer all questions of a request in one batch (src/heads/request-logits.ts).
// Each question's logits must be bit-for-bit those it gets alone, whatever else the batch holds
// and however it is cut into chunks, on the backend the engine serves with and the shipped heads.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../src/encoder/backend.js';
import { gemmReady, setGemmEnabled } from '../src/kernels/gemm.js';
import type { TextRep } from '../src/heads/late.js';
import { chunkQuestions, CHUNK_TEXTS, requestLogits, type QuestionInput } from '../src/heads/request-logits.js';
import { questionLogits, loadHeads, type TrainedHeads } from '../src/heads/trained.js';
import { defaultManifestPath } from '../src/registry/index.js';
import path from 'node:path';
import { text } from './random-text.js';


const questionArb: fc.Arbitrary<QuestionInput> = fc
  .record({
    type: fc.constantFrom('noul' as const, 'choice' as const, 'score' as const),
    seed: fc.integer({ min: 1, max: 1e6 }),
    instr: fc.integer({ min: 0, max: 40 }),
    lines: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 9 }),
  })
  .map(({ type, seed, instr, lines }) => ({
    type,
    instructions: text(seed, instr),
    lines: (type === 'noul' ? [lines[0]!, lines[1] ?? 0] : lines).map((n, i) => text(seed * 31 + i + 1, n)),
  }));

let heads: TrainedHeads;
beforeAll(async () => {
  await initBackend();
  heads = loadHeads({ kind: 'late-interaction', manifest: 'heads-1.13.0.json' }, path.dirname(defaultManifestPath()));
});

const alone = (state: TextRep, q: QuestionInput) => questionLogits(heads.members, state, q.type, q.instructions, q.lines);

describe('batched head logits', () => {
  it('equal each question alone, bit for bit, whatever the other questions', () => {
    fc.assert(
      fc.property(fc.array(questionArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 300 }), (questions, stateTokens) => {
        const state = text(stateTokens + 7, stateTokens);
        const batched = requestLogits(heads.members, state, questions);
        questions.forEach((q, i) => expect(batched[i]).toStrictEqual(alone(state, q)));
      }),
      { numRuns: 25 },
    );
  });

  it('cut into chunks when the batch would be large, with the same results', () => {
    const state = text(3, 1500);
    const many = Array.from({ length: 40 }, (_, i): QuestionInput => ({ type: 'choice', instructions: text(100 + i, 30), lines: [text(200 + i, 40), text(300 + i, 5)] }));
    // 40 x 75 tokens against 1,500 state tokens: over the similarity-cell bound, so several chunks.
    expect(chunkQuestions(many, state.n).length).toBeGreaterThan(1);
    const batched = requestLogits(heads.members, state, many);
    many.forEach((q, i) => expect(batched[i]).toStrictEqual(alone(state, q)));
  });

  it("are the same, to float rounding, on our matrix kernel and on tfjs' own products", () => {
    expect(gemmReady()).toBe(true);
    fc.assert(
      fc.property(fc.array(questionArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 300 }), (questions, stateTokens) => {
        const state = text(stateTokens + 11, stateTokens);
        const ours = requestLogits(heads.members, state, questions);
        setGemmEnabled(false);
        let theirs: number[][];
        try {
          theirs = requestLogits(heads.members, state, questions);
        } finally {
          setGemmEnabled(true);
        }
        ours.forEach((logits, i) => logits.forEach((v, j) => expect(Math.abs(v - theirs[i]![j]!)).toBeLessThan(1e-3)));
      }),
      { numRuns: 15 },
    );
  });

  it('keeps chunks within the text bound and every question exactly once, in order', () => {
    const qs = Array.from({ length: 300 }, (_, i): QuestionInput => ({ type: 'score', instructions: text(i, 1), lines: [text(i + 1, 1), text(i + 2, 1)] }));
    const chunks = chunkQuestions(qs, 10);
    expect(chunks.flat()).toEqual(qs.map((_, i) => i));
    for (const c of chunks) expect(c.length * 3).toBeLessThanOrEqual(CHUNK_TEXTS);
    // A question over every bound on its own still gets a chunk of its own.
    expect(chunkQuestions([{ type: 'noul', instructions: text(1, 5000), lines: [text(2, 0), text(3, 0)] }], 4000)).toEqual([[0]]);
  });
});
