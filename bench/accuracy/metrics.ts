/**
 * Scoring of answers against gold, as the shared data README defines it (the JevBench rule):
 * each answer is a distribution over its options (noul p -> {true: p, false: 1-p}, score levels
 * are options); the top option scores 1, a k-way tie at the top that includes the gold 1/k.
 * Plus Brier score, 10-bin expected calibration error of the top option, mean probability on
 * the gold option, and a Spearman correlation of score answers with gold levels.
 * @module
 */

/** One scored question: its distribution (in outcome order) and the gold index. */
export interface Scored {
  type: 'noul' | 'choice' | 'score';
  probs: number[];
  gold: number;
  file?: string;
}

/** The JevBench item score: 1/|winners| if gold is among the winners (within 1e-9 of the max). */
export function itemScore(probs: readonly number[], gold: number): number {
  const max = Math.max(...probs);
  const winners = probs.map((p, i) => (p >= max - 1e-9 ? i : -1)).filter((i) => i >= 0);
  return winners.includes(gold) ? 1 / winners.length : 0;
}

/** Renormalises a distribution (the benchmark does, against rounding). */
export function normalise(probs: readonly number[]): number[] {
  const s = probs.reduce((a, b) => a + b, 0);
  return s > 0 ? probs.map((p) => p / s) : probs.map(() => 1 / probs.length);
}

/** Multi-class Brier score: sum over options of (p - 1[gold])^2. */
export function brier(probs: readonly number[], gold: number): number {
  return probs.reduce((s, p, i) => s + (p - (i === gold ? 1 : 0)) ** 2, 0);
}

/** 10-bin ECE of the top option's probability against the item score. */
export function ece(items: readonly { conf: number; correct: number }[], bins = 10): number {
  if (items.length === 0) return 0;
  const sumConf = new Array<number>(bins).fill(0);
  const sumCorrect = new Array<number>(bins).fill(0);
  const count = new Array<number>(bins).fill(0);
  for (const { conf, correct } of items) {
    const b = Math.min(bins - 1, Math.floor(conf * bins));
    sumConf[b]! += conf;
    sumCorrect[b]! += correct;
    count[b]!++;
  }
  let e = 0;
  for (let b = 0; b < bins; b++) if (count[b]! > 0) e += Math.abs(sumConf[b]! - sumCorrect[b]!) / items.length;
  return e;
}

function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2;
    i = j + 1;
  }
  return r;
}

/** Spearman rank correlation (ties averaged); NaN with fewer than 3 points or no variance. */
export function spearman(a: readonly number[], b: readonly number[]): number {
  if (a.length < 3) return NaN;
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i]! - ma) * (rb[i]! - mb);
    da += (ra[i]! - ma) ** 2;
    db += (rb[i]! - mb) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : NaN;
}

/** Aggregate figures of a group of scored questions. */
export interface Summary {
  n: number;
  accuracy: number;
  brier: number;
  ece: number;
  goldProb: number;
  /** Accuracy of answering uniformly over the same questions. */
  uniform: number;
  /** score questions only: Spearman of the expected level with the gold level. */
  spearman?: number;
}

export function summarise(items: readonly Scored[]): Summary {
  const n = items.length;
  if (n === 0) return { n: 0, accuracy: NaN, brier: NaN, ece: NaN, goldProb: NaN, uniform: NaN };
  let acc = 0;
  let br = 0;
  let gp = 0;
  let uni = 0;
  const cal: { conf: number; correct: number }[] = [];
  for (const it of items) {
    const p = normalise(it.probs);
    const s = itemScore(p, it.gold);
    acc += s;
    br += brier(p, it.gold);
    gp += p[it.gold] ?? 0;
    uni += 1 / p.length;
    cal.push({ conf: Math.max(...p), correct: s });
  }
  const out: Summary = { n, accuracy: acc / n, brier: br / n, ece: ece(cal), goldProb: gp / n, uniform: uni / n };
  const scores = items.filter((i) => i.type === 'score');
  if (scores.length > 0 && scores.length === n) {
    out.spearman = spearman(
      scores.map((s) => normalise(s.probs).reduce((e, p, i) => e + i * p, 0)),
      scores.map((s) => s.gold),
    );
  }
  return out;
}

/** Nearest-rank percentile of a list of numbers. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
