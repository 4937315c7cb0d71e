import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TextRep } from '../src/heads/late.js';
import { MIN_REMOTE_TOKENS, remoteFrom, sharedLogits, wireInputs, type HeadsHelper } from '../src/heads/remote.js';
import type { QuestionInput } from '../src/heads/request-logits.js';
import type { TrainedHeadsSpec } from '../src/heads/trained.js';

const text = (n: number, seed = 0): TextRep => ({
  tokens: Float32Array.from({ length: n * 512 }, (_, i) => ((i * 31 + seed) % 97) / 97),
  n,
  pooled: new Float32Array(512).fill(seed),
  ids: Array.from({ length: n }, (_, i) => 100 + i + seed),
});
const question = (n: number, seed: number): QuestionInput => ({ type: 'noul', instructions: text(n, seed), lines: [text(1, seed), text(0)], pair: null });
const spec: TrainedHeadsSpec = { kind: 'late-interaction', manifest: 'heads.json' };
const STATE = text(40, 7);
// Logits that name their question, so order and completeness are visible.
const local = (qs: readonly QuestionInput[]) => qs.map((q) => [q.instructions.ids![0]!, q.instructions.n]);

/** A helper in this thread: answers with `local` over what crossed the wire, or misbehaves. */
function helper(mode: 'ok' | 'fails' | 'short' | 'busy'): HeadsHelper & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    available: () => mode !== 'busy',
    async logits(_spec, state, questions) {
      asked.push(questions.length);
      const wire = wireInputs(state, questions);
      if (mode === 'fails') throw new Error('peer ended');
      if (mode === 'short') return local(wire.questions).slice(1);
      return local(wire.questions);
    },
  };
}

describe('questions shared with a helper thread', () => {
  it('keeps small requests on one thread and cuts others near half the question tokens', () => {
    expect(remoteFrom([question(200, 1)])).toBe(-1);
    expect(remoteFrom([question(10, 1), question(10, 2)])).toBe(-1);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 2, maxLength: 12 }), (sizes) => {
        const qs = sizes.map((n, i) => question(n, i));
        const tokens = qs.map((q) => q.instructions.n + 1);
        const total = tokens.reduce((s, n) => s + n, 0);
        const from = remoteFrom(qs);
        if (total < MIN_REMOTE_TOKENS) return from === -1;
        const here = tokens.slice(0, from).reduce((s, n) => s + n, 0);
        return from >= 1 && from < qs.length && Math.abs(2 * here - total) <= Math.max(...tokens) + 1;
      }),
    );
  });

  it('gives every question its own logits in input order, whoever computes them', async () => {
    const qs = Array.from({ length: 9 }, (_, i) => question(14 + i, i * 10));
    const expected = local(qs);
    const ok = helper('ok');
    expect(await sharedLogits(spec, STATE, qs, local, ok)).toEqual(expected);
    expect(ok.asked).toHaveLength(1);
    expect(ok.asked[0]).toBeGreaterThan(0);
    expect(ok.asked[0]).toBeLessThan(qs.length);
    // A failing, short-answering or busy helper leaves the questions to this thread.
    for (const mode of ['fails', 'short', 'busy'] as const) {
      const h = helper(mode);
      expect(await sharedLogits(spec, STATE, qs, local, h), mode).toEqual(expected);
      expect(h.asked, mode).toHaveLength(mode === 'busy' ? 0 : 1);
    }
    expect(await sharedLogits(spec, STATE, qs, local, null)).toEqual(expected);
  });

  it('sends compact copies, not views of larger buffers', () => {
    const big = new Float32Array(10 * 512).fill(1);
    const view: TextRep = { tokens: big.subarray(0, 3 * 512), n: 3, pooled: new Float32Array(512) };
    const wire = wireInputs(view, [question(5, 1)]);
    expect(wire.state.tokens.buffer.byteLength).toBe(3 * 512 * 4);
    expect(wire.state.tokens).toEqual(view.tokens);
    expect(wire.questions[0]!.instructions.ids).toEqual(question(5, 1).instructions.ids);
  });
});
