/**
 * Accounting of the encoder's arithmetic: how many sequences, tokens and floating-point
 * operations each pass runs. The counters are per process (per worker thread) and cost a few
 * additions per pass; `bench/speed` reads them to report FLOPs per request and GFLOP/s.
 * @module
 */
import type { EncoderWeights } from './weights.js';

/** Cumulative counters of the encoder's work in this thread. */
export interface EncoderWork {
  /** Transformer passes (one per batch of equal-length sequences). */
  passes: number;
  /** Sequences (windows) encoded. */
  sequences: number;
  /** Real tokens encoded. */
  tokens: number;
  /** Token rows computed, padding included (equal to `tokens` when batches hold one length). */
  paddedTokens: number;
  /** Floating-point operations of the matrix products (2 per multiply-add), padding included. */
  flops: number;
}

const work: EncoderWork = { passes: 0, sequences: 0, tokens: 0, paddedTokens: 0, flops: 0 };

/** A copy of this thread's counters. */
export function readEncoderWork(): EncoderWork {
  return { ...work };
}

/** Adds one pass to the counters. */
export function recordEncoderWork(pass: Omit<EncoderWork, 'passes'>): void {
  work.passes++;
  work.sequences += pass.sequences;
  work.tokens += pass.tokens;
  work.paddedTokens += pass.paddedTokens;
  work.flops += pass.flops;
}

/** Adds work that is not a transformer pass (the pooler projection). */
export function recordFlops(flops: number): void {
  work.flops += flops;
}

/**
 * Multiply-adds per token of the dense projections run as matrix products: every layer's,
 * except layer 0's input projections (queries, keys, values and the residual), which are read
 * from tables (input-tables.ts; their one-time rows are counted when computed).
 */
export function denseMacsPerToken(weights: EncoderWeights): number {
  let macs = 0;
  weights.layers.forEach((l, i) => {
    const products = i === 0 ? [l.attentionOut, l.ffnIn, l.ffnOut] : [l.qkv, l.attentionOut, l.residualProjection, l.ffnIn, l.ffnOut];
    for (const d of products) if (d) macs += d.kernel.shape[0] * d.kernel.shape[1];
  });
  return macs;
}

/**
 * FLOPs of one transformer pass over `batch` sequences of `length` tokens: the dense
 * projections per token, attention's two products per head (scores and context, `length^2 x
 * width` multiply-adds each per layer), and `pooled` pooler projections. Element-wise work
 * (layer norms, softmax, residual adds) is left out: it is under 2% of the total.
 * `skippedMacsPerToken` removes work a pass does not run (the last projection when only the
 * pooled embedding is needed: it is then applied once per text, counted in `pooled`).
 */
export function passFlops(
  weights: EncoderWeights,
  batch: number,
  length: number,
  pooled: number,
  skippedMacsPerToken = 0,
  extraMacs = 0,
): number {
  let attention = 0;
  for (const l of weights.layers) attention += 2 * length * length * l.inputDim;
  const dense = denseMacsPerToken(weights) - skippedMacsPerToken;
  const pool = weights.pooler.kernel.shape[0] * weights.pooler.kernel.shape[1];
  return 2 * (batch * (length * dense + attention) + pooled * pool + extraMacs);
}
