/**
 * Scoring and temperatures of reader predictions: accuracy and NLL per question type, and a
 * temperature per type and option-count bucket chosen by NLL on held-out training data.
 * @module
 */
import { BUCKETS, bucketOf } from '../../heads/reader/weights.js';
import type { Prediction } from './loop.js';

function nll(logits: readonly number[], gold: number, t: number): number {
  const z = logits.map((l) => l / t);
  const m = Math.max(...z);
  const lse = m + Math.log(z.reduce((s, x) => s + Math.exp(x - m), 0));
  return lse - z[gold]!;
}

const bucket = (x: Prediction) => bucketOf(x.item.type, x.item.type === 'noul' ? 2 : x.logits.length);

/** Temperature per bucket minimising NLL (grid in log space; small buckets pool with their type). */
export function fitTemperatures(preds: readonly Prediction[]): Record<string, number> {
  const temps: Record<string, number> = {};
  const grid = Array.from({ length: 81 }, (_, i) => Math.exp(Math.log(0.1) + (i / 80) * (Math.log(10) - Math.log(0.1))));
  for (const b of BUCKETS) {
    let group = preds.filter((x) => bucket(x) === b);
    if (group.length < 30) group = preds.filter((x) => x.item.type === b.split(':')[0]);
    let best = 1;
    let bestLoss = Infinity;
    for (const t of grid) {
      const loss = group.reduce((s, x) => s + nll(x.logits, x.item.gold, t), 0);
      if (loss < bestLoss) [best, bestLoss] = [t, loss];
    }
    temps[b] = best;
  }
  return temps;
}

export interface TypeMetrics {
  n: number;
  accuracy: number;
  nll: number;
}

/** Accuracy (ties split) and mean NLL per question type and overall. */
export function metrics(preds: readonly Prediction[], temps: Record<string, number> | null = null): Record<string, TypeMetrics> {
  const acc: Record<string, { n: number; a: number; l: number }> = {};
  for (const x of preds) {
    const t = temps ? temps[bucket(x)]! : 1;
    const top = Math.max(...x.logits);
    const ties = x.logits.filter((l) => l === top).length;
    const a = x.logits[x.item.gold] === top ? 1 / ties : 0;
    const l = nll(x.logits, x.item.gold, t);
    for (const k of [x.item.type, 'all']) {
      const e = (acc[k] ??= { n: 0, a: 0, l: 0 });
      e.n++;
      e.a += a;
      e.l += l;
    }
  }
  return Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, { n: v.n, accuracy: v.a / v.n, nll: v.l / v.n }]));
}

export function formatMetrics(m: Record<string, TypeMetrics>): string {
  return ['all', 'noul', 'choice', 'score']
    .filter((k) => m[k])
    .map((k) => `${k} ${m[k]!.accuracy.toFixed(3)} (n ${m[k]!.n}, nll ${m[k]!.nll.toFixed(3)})`)
    .join(' · ');
}
