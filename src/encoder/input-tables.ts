/**
 * The first layer's input projections as table lookups. Layer 0 reads its input, 2 x embedding
 * + timing signal, through linear maps only: the queries, keys and values of the layer-normed
 * input, and the residual projection that widens it from 256 to 512. A layer norm is linear
 * once its row statistics are known:
 *
 *   normalise(x) W = r (x W - mu colsum(W)),  r = 1 / sqrt(var(x) + eps),  mu = mean(x),
 *
 * and x W = (2 E[token]) W + P[position] W. So both products become a row of a per-token table
 * plus a row of a per-position table, corrected by the row's own mean and spread: 1,280 sums
 * per token in place of 256 x 1,280 multiply-adds, 7% of the encoder's products (measured in
 * docs/performance.md). The position table is built at load; a token's row is computed the
 * first time the token is seen (a text uses a few thousand of the 8,000 pieces, so memory
 * grows with the vocabulary actually met: 5 KiB a piece, at most 40 MiB). Every row is one row
 * of a matrix product, computed from that row alone, so a row's values never
 * depend on the other tokens computed with it; results are the same whatever was encoded
 * before.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { ENCODER_SHAPE } from './weights.js';
import { recordFlops } from './work.js';

/** A window's rows [from, from + rows) of a sequence of token ids. */
export interface RowRange {
  ids: readonly number[];
  from: number;
  rows: number;
}

/** Layer 0's projections of some rows: per head query, key and value, and the residual. */
export interface InputProjections {
  /** [3 x heads] tensors [rows, depth]: head 0's query, key, value, then head 1's, ... */
  heads: tf.Tensor2D[];
  /** The residual projection of the input (its bias included), [rows, width]. */
  residual: tf.Tensor2D;
}

/** What the tables are built from: host copies and layer 0's folded projections. */
export interface InputTableSource {
  /** 2 x embedding table, [vocab, dim]. */
  embeddings: Float32Array;
  /** Timing signal, [maxTokens, dim]. */
  timing: Float32Array;
  dim: number;
  /** Per head, in order: query, key, value kernels [dim, depth] and biases, layer norm folded in. */
  heads: { kernel: tf.Tensor2D; bias: tf.Tensor1D }[];
  /** The residual projection, [dim, width], and its bias. */
  residual: { kernel: tf.Tensor2D; bias: tf.Tensor1D };
}

export class InputTables {
  private readonly dim: number;
  private readonly depth: number;
  private readonly headCount: number;
  /** Columns of a table row: every head's projections, then the residual's. */
  private readonly columns: number;
  private readonly normedColumns: number;
  private readonly embeddings: Float32Array;
  private readonly timing: Float32Array;
  /** [dim, columns]: every projection side by side. */
  private readonly kernel: tf.Tensor2D;
  /** Per token: 2 E[token] kernel, filled on first use. */
  private readonly tokenRows: Float32Array;
  private readonly filled: Uint8Array;
  /** Per position: P[position] kernel. */
  private readonly positionRows: Float32Array;
  private readonly colSums: Float64Array;
  private readonly biases: Float32Array;

  constructor(source: InputTableSource) {
    const { dim, heads, residual } = source;
    this.dim = dim;
    this.depth = heads[0]!.kernel.shape[1];
    this.headCount = heads.length;
    this.normedColumns = this.headCount * this.depth;
    this.columns = this.normedColumns + residual.kernel.shape[1];
    this.embeddings = source.embeddings;
    this.timing = source.timing;
    this.kernel = tf.concat([...heads.map((h) => h.kernel), residual.kernel], 1) as tf.Tensor2D;
    const vocab = this.embeddings.length / dim;
    this.tokenRows = new Float32Array(vocab * this.columns);
    this.filled = new Uint8Array(vocab);
    this.positionRows = this.product(this.timing, ENCODER_SHAPE.maxTokens);
    const kernel = this.kernel.dataSync() as Float32Array;
    this.colSums = new Float64Array(this.normedColumns);
    for (let i = 0; i < dim; i++) for (let c = 0; c < this.normedColumns; c++) this.colSums[c] = this.colSums[c]! + kernel[i * this.columns + c]!;
    this.biases = new Float32Array(this.columns);
    let at = 0;
    for (const b of [...heads.map((h) => h.bias), residual.bias]) {
      const values = b.dataSync() as Float32Array;
      this.biases.set(values, at);
      at += values.length;
    }
  }

  /** `rows` rows of `input` [rows, dim] times the kernel, [rows, columns]. */
  private product(input: Float32Array, rows: number): Float32Array {
    const out = tf.tidy(() => tf.matMul(tf.tensor2d(input, [rows, this.dim]), this.kernel));
    const values = out.dataSync() as Float32Array;
    out.dispose();
    return values;
  }

  /** Computes the rows of tokens not seen before. */
  private fill(ranges: readonly RowRange[]): void {
    const missing = new Set<number>();
    for (const { ids, from, rows } of ranges) for (let r = from; r < from + rows; r++) if (!this.filled[ids[r]!]) missing.add(ids[r]!);
    if (missing.size === 0) return;
    const list = [...missing];
    const input = new Float32Array(list.length * this.dim);
    list.forEach((id, i) => input.set(this.embeddings.subarray(id * this.dim, (id + 1) * this.dim), i * this.dim));
    const values = this.product(input, list.length);
    recordFlops(2 * list.length * this.dim * this.columns);
    list.forEach((id, i) => {
      this.tokenRows.set(values.subarray(i * this.columns, (i + 1) * this.columns), id * this.columns);
      this.filled[id] = 1;
    });
  }

  /** Layer 0's projections of the given rows, stacked in order. */
  project(ranges: readonly RowRange[]): InputProjections {
    this.fill(ranges);
    const total = ranges.reduce((n, r) => n + r.rows, 0);
    const { dim, depth, columns, normedColumns, embeddings, timing, tokenRows, positionRows, colSums, biases } = this;
    const heads = Array.from({ length: this.headCount }, () => new Float32Array(total * depth));
    const width = columns - normedColumns;
    const residual = new Float32Array(total * width);
    const eps = ENCODER_SHAPE.layerNormEpsilon;
    let row = 0;
    for (const { ids, from, rows } of ranges) {
      for (let r = from; r < from + rows; r++, row++) {
        const e = ids[r]! * dim;
        const p = r * dim;
        // The row's statistics, as the layer norm takes them (mean, then mean squared deviation).
        let mean = 0;
        for (let j = 0; j < dim; j++) mean += embeddings[e + j]! + timing[p + j]!;
        mean /= dim;
        let variance = 0;
        for (let j = 0; j < dim; j++) {
          const d = embeddings[e + j]! + timing[p + j]! - mean;
          variance += d * d;
        }
        const scale = 1 / Math.sqrt(variance / dim + eps);
        const t = ids[r]! * columns;
        const q = r * columns;
        for (let h = 0, k = 0; h < heads.length; h++) {
          const out = heads[h]!;
          for (let c = 0, o = row * depth; c < depth; c++, k++, o++) {
            out[o] = scale * (tokenRows[t + k]! + positionRows[q + k]! - mean * colSums[k]!) + biases[k]!;
          }
        }
        for (let c = 0, k = normedColumns, o = row * width; c < width; c++, k++, o++) {
          residual[o] = tokenRows[t + k]! + positionRows[q + k]! + biases[k]!;
        }
      }
    }
    return { heads: heads.map((h) => tf.tensor2d(h, [total, depth])), residual: tf.tensor2d(residual, [total, width]) };
  }

  dispose(): void {
    this.kernel.dispose();
  }
}
