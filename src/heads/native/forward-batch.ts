/**
 * The arrays forward-graph.ts reads, built from a batch of aligned questions: the same rows and
 * texts as batch.ts `buildBatch` gives tfjs, with indices where tfjs has membership matrices.
 * Every list a product reads has at least two rows (padding repeats a valid index; its outputs
 * are dropped), see forward-graph.ts.
 * @module
 */
import type { BatchQuestion } from '../batch.js';
import { HIDDEN, NFIXED, PER_TOKEN, type Aligned } from '../late.js';

/** Float inputs and int64 index inputs, with their lengths along the first axis. */
export interface ForwardData {
  floats: Record<string, Float32Array>;
  indices: Record<string, number[]>;
  sizes: Record<'F' | 'M' | 'N' | 'C' | 'S', number>;
  /** Questions of each type, in batch order (the real rows of each output). */
  counts: { noul: number; choice: number; score: number };
}

/** Lines of one type's questions: text, question, 1/K, pair inputs, and (score) neighbours and positions. */
function lineArrays(rowsPerQ: number[][], pairs: (number | null)[], pad: number) {
  const line: number[] = [];
  const group: number[] = [];
  const invK: number[] = [];
  const left: number[] = [];
  const right: number[] = [];
  const nbW: number[] = [];
  const pos: number[] = [];
  rowsPerQ.forEach((rows, q) => {
    const K = rows.length;
    const start = line.length;
    rows.forEach((r, k) => {
      line.push(r);
      group.push(q);
      invK.push(1 / K);
      const has = [k > 0, k + 1 < K];
      const w = 1 / Math.max(1, has.filter(Boolean).length);
      left.push(has[0] ? start + k - 1 : start + k);
      right.push(has[1] ? start + k + 1 : start + k);
      nbW.push(has[0] ? w : 0, has[1] ? w : 0);
      const x = K > 1 ? (2 * k) / (K - 1) - 1 : 0;
      pos.push(Math.abs(x), x * x);
    });
  });
  const pairHas = pairs.map((v) => (v === null ? 0 : 1));
  const pairSim = pairs.map((v) => v ?? 0);
  // Padding lines: a question of their own (group = their index), reading text `pad`.
  while (line.length < 2) {
    const i = line.length;
    line.push(pad);
    group.push(i);
    invK.push(1);
    left.push(i);
    right.push(i);
    nbW.push(0, 0);
    pos.push(0, 0);
    pairHas.push(0);
    pairSim.push(0);
  }
  return { line, group, invK, left, right, nbW, pos, pairHas, pairSim };
}

/** The inputs of forward-graph.ts for these questions. */
export function forwardData(questions: readonly BatchQuestion[]): ForwardData {
  const texts: Aligned[] = [];
  const add = (a: Aligned) => texts.push(a) - 1;
  const noul = { instr: [] as number[], yes: [] as number[], no: [] as number[], has: [] as number[] };
  const rows = { choice: [] as number[][], score: [] as number[][] };
  const pairs = { choice: [] as (number | null)[], score: [] as (number | null)[] };
  for (const q of questions) {
    if (q.type === 'noul') {
      noul.instr.push(add(q.instructions));
      noul.yes.push(add(q.lines[0]!));
      noul.no.push(add(q.lines[1]!));
      noul.has.push(q.lines.some((l) => l.n > 0) ? 1 : 0);
    } else {
      rows[q.type].push(q.lines.map(add));
      for (let k = 0; k < q.lines.length; k++) pairs[q.type].push(q.pair ?? null);
    }
  }
  const counts = { noul: noul.instr.length, choice: rows.choice.length, score: rows.score.length };
  const M = texts.length;
  const tokens = texts.reduce((s, t) => s + t.n, 0);
  const F = Math.max(2, tokens);
  const tok = new Float32Array(F * HIDDEN);
  const al = new Float32Array(F * HIDDEN);
  const bs = new Float32Array(F * PER_TOKEN);
  const rowText = new Array<number>(F).fill(M);
  const fixed = new Float32Array(M * NFIXED);
  const pooled = new Float32Array(M * HIDDEN);
  let row = 0;
  texts.forEach((t, m) => {
    tok.set(t.tokens.subarray(0, t.n * HIDDEN), row * HIDDEN);
    al.set(t.aligned, row * HIDDEN);
    for (let i = 0; i < t.n; i++) {
      const o = (row + i) * PER_TOKEN;
      bs[o] = t.best[i]!;
      bs[o + 1] = t.soft[i]!;
      bs[o + 2] = t.exact[i]!;
      bs[o + 3] = t.negAtt[i]!;
      bs[o + 4] = Math.abs(t.negAtt[i]! - t.selfNeg[i]!);
      rowText[row + i] = m;
    }
    row += t.n;
    fixed.set(t.fixed, m * NFIXED);
    pooled.set(t.pooled, m * HIDDEN);
  });
  while (noul.instr.length < 2) {
    noul.instr.push(0);
    noul.yes.push(0);
    noul.no.push(0);
    noul.has.push(0);
  }
  const c = lineArrays(rows.choice, pairs.choice, 0);
  const s = lineArrays(rows.score, pairs.score, 0);
  const f32 = (v: readonly number[]) => Float32Array.from(v);
  return {
    floats: {
      tokens: tok,
      aligned: al,
      bestSoft: bs,
      fixed,
      pooled,
      nHas: f32(noul.has),
      cInvK: f32(c.invK),
      cPairHas: f32(c.pairHas),
      cPairSim: f32(c.pairSim),
      sInvK: f32(s.invK),
      sNbW: f32(s.nbW),
      sPos: f32(s.pos),
      sPairHas: f32(s.pairHas),
      sPairSim: f32(s.pairSim),
    },
    indices: { rowText, nInstr: noul.instr, nYes: noul.yes, nNo: noul.no, cLine: c.line, cGroup: c.group, sLine: s.line, sGroup: s.group, sLeft: s.left, sRight: s.right },
    sizes: { F, M, N: noul.instr.length, C: c.line.length, S: s.line.length },
    counts,
  };
}
