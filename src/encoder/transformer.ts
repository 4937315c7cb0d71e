/**
 * Our tfjs implementation of the Universal Sentence Encoder lite transformer ("Kona"): two
 * pre-norm layers (256 -> 512 wide, 4 heads each), sinusoidal positions, mean pooling and a tanh
 * projection, as architecture.ts describes it (the ONNX graph of onnx-graph.ts follows the same
 * plan). Written op by op from the frozen graph so that masks, intermediate token states
 * and caching are ours to control; `test/encoder.test.ts` proves it equal to the graph.
 *
 * How it is laid out for speed on the wasm backend (measured; see docs/performance.md):
 * - Every sequence (a text, or one 128-token window of a long text) runs as its own chain of
 *   two-dimensional ops over its real tokens: no padding, no masks, and nothing that mixes
 *   rows of different sequences. A sequence's result is therefore bit-for-bit the same
 *   whatever else is encoded in the same call. tfjs' per-op cost on wasm is a few
 *   microseconds and XNNPACK's matrix product is as fast at 128 rows as at 1,024, so
 *   chaining per sequence costs nothing measurable against one big batch.
 * - The dense layers and attention run on our WebAssembly matrix kernel (kernels/gemm.ts, about
 *   1.3x XNNPACK's speed here) wherever it serves the backend, else on tfjs' products.
 * - Attention runs per head as plain 2-D products (queries x transposed keys, then x values,
 *   `attend`). The wasm backend's batched 3-D product is a scalar loop, ten to forty times
 *   slower. Queries, keys and values come from one projection per head, so no
 *   op ever cuts a head out of a wider tensor: the wasm Slice copies its whole input to the
 *   JavaScript heap first, and its Gather runs at ~40 ns an element.
 * - Folded constants: the layer norms' scale and bias are folded into the projection that
 *   follows them, the query scale 1/sqrt(depth) into the query projections.
 * - Layer 0's input projections (queries, keys, values, residual) are table lookups
 *   (input-tables.ts), not products.
 * - Pooled-only passes skip the last layer's output projection per token: mean pooling is
 *   linear, so sum(x + h W + b) = sum(x) + sum(h) W + n b, one product per sequence.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { gemmReady, packable, packDense } from '../kernels/gemm.js';
import { InputTables, type InputProjections, type RowRange } from './input-tables.js';
import { planEncoder } from './architecture.js';
import { attend, attentionResidual, dense, ffnHidden, projectHeads, type Dense, type PreparedLayer } from './layer.js';
import { ENCODER_SHAPE, type EncoderWeights } from './weights.js';

/** Per-token states of a batch of sequences, right-padded. */
export interface TokenStates {
  /** [batch, length, hidden] final hidden states; rows past a sequence's length are padding. */
  states: tf.Tensor3D;
  /** [batch, length] 1 for real tokens, 0 for padding. */
  mask: tf.Tensor2D;
}

/**
 * Sequences of at most this many tokens run in groups of equal length: their projections as
 * one matrix product over the group's rows, attention as one batched product (the backend's
 * scalar loop, cheap at this size). XNNPACK is far less efficient on a dozen rows than on a
 * few hundred, and outcome and question texts are mostly this short. Longer sequences run
 * alone, attention per head on XNNPACK. The path depends on a sequence's own length only, so
 * its result never depends on what else is encoded with it.
 */
export const SHORT_SEQUENCE_MAX = 32;

/** What one block (one long sequence, or a group of short ones of one length) leaves. */
interface BlockOutput {
  /** Per sequence, sum of the final token states [count, hidden]; pooled-only, of the last layer's input. */
  sums: tf.Tensor2D;
  /** Pooled-only: per sequence, sum of the last FFN's hidden activations, [count, ffn]. */
  hiddenSums?: tf.Tensor2D;
  /** Final token states [count * length, hidden], when kept. */
  states?: tf.Tensor2D;
}

/** The sequences of one call in the order the encoder runs them. */
export interface PassOrder {
  /** Input index of each sequence, in pass order (empty sequences last). */
  order: number[];
}

/**
 * The encoder proper. Holds folded copies of the weights; stateless between calls, so one
 * instance serves concurrent requests.
 */
export class TransformerEncoder {
  /** Layer 0's input projections (2 x embedding + timing signal, through the layer's linear maps). */
  private readonly tables: InputTables;
  private readonly layers: PreparedLayer[];
  private readonly pooler: Dense;
  private readonly owned: tf.Tensor[] = [];

  constructor(weights: EncoderWeights) {
    const plan = planEncoder(weights);
    this.owned.push(...plan.tensors);
    this.layers = plan.layers;
    const first = this.layers[0]!;
    this.tables = new InputTables({
      embeddings: plan.embeddings,
      timing: plan.timing,
      dim: plan.dim,
      heads: first.query.flatMap((q, h) => [q, first.key[h]!, first.value[h]!]),
      residual: first.residual!,
    });
    this.pooler = plan.pooler;
    if (gemmReady()) {
      for (const d of [...this.layers.flatMap((l) => [...l.query, ...l.key, ...l.value, l.out, l.ffnIn, l.ffnOut]), this.pooler]) {
        if (!packable(d.kernel.shape[0], d.kernel.shape[1])) continue;
        d.packed = packDense(d.kernel, d.bias);
        this.owned.push(d.packed.packed, d.packed.bias);
      }
    }
  }

  /** The folded layers, for the row split of one window across threads (rows.ts). */
  get prepared(): { layers: readonly PreparedLayer[] } {
    return { layers: this.layers };
  }

  /** Layer 0's projections of rows of windows (input-tables.ts). Call inside `tf.tidy`. */
  inputProjections(ranges: readonly RowRange[]): InputProjections {
    return this.tables.project(ranges);
  }

  private check(sequences: readonly (readonly number[])[]): void {
    for (const s of sequences) {
      if (s.length > ENCODER_SHAPE.maxTokens) {
        throw new RangeError(`A sequence of ${s.length} tokens exceeds the encoder window of ${ENCODER_SHAPE.maxTokens}`);
      }
    }
  }

  /**
   * `count` non-empty sequences of one `length` through every layer: one long sequence, or a
   * group of short ones (length <= SHORT_SEQUENCE_MAX). Call inside `tf.tidy`.
   */
  private encodeBlock(sequences: readonly (readonly number[])[], keepStates: boolean): BlockOutput {
    const count = sequences.length;
    const length = sequences[0]!.length;
    const grouped = length <= SHORT_SEQUENCE_MAX;
    let x: tf.Tensor2D | null = null;
    const last = this.layers.length - 1;
    for (let index = 0; index <= last; index++) {
      const layer = this.layers[index]!;
      const depth = layer.width / layer.heads;
      const input = x === null ? this.tables.project(sequences.map((ids) => ({ ids, from: 0, rows: ids.length }))) : { heads: projectHeads(layer, x), residual: x };
      const contexts = layer.query.map((_, h) => {
        const [queries, keys, values] = input.heads.slice(3 * h, 3 * h + 3) as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
        if (!grouped) return attend(queries, keys, values);
        const as3d = (t: tf.Tensor2D) => tf.reshape(t, [count, length, depth]) as tf.Tensor3D;
        const scores = tf.matMul(as3d(queries), as3d(keys), false, true);
        return tf.reshape(tf.matMul(tf.softmax(scores), as3d(values)), [count * length, depth]) as tf.Tensor2D;
      });
      const context = (contexts.length === 1 ? contexts[0]! : tf.concat(contexts, 1)) as tf.Tensor2D;
      x = attentionResidual(layer, context, input.residual);
      const hidden = ffnHidden(layer, x);
      if (index === last && !keepStates) {
        return { sums: this.rowSums(x, count, length), hiddenSums: this.rowSums(hidden, count, length) };
      }
      x = tf.add(x, dense(hidden, layer.ffnOut)) as tf.Tensor2D;
    }
    return { sums: this.rowSums(x!, count, length), states: x! };
  }

  /** Per-sequence sums of a block's rows [count * length, d] -> [count, d]. */
  private rowSums(rows: tf.Tensor2D, count: number, length: number): tf.Tensor2D {
    if (count === 1) return tf.sum(rows, 0, true) as tf.Tensor2D;
    return tf.sum(tf.reshape(rows, [count, length, rows.shape[1]]), 1) as tf.Tensor2D;
  }

  /**
   * Runs a call's sequences: long ones alone in input order, then short ones grouped by length,
   * empty ones last (zero rows). Returns per-sequence sums [sequences, hidden] and, with
   * `keepStates`, the token states [tokens, hidden], both in pass order (`order`). Call
   * inside `tf.tidy`.
   */
  private run(sequences: readonly (readonly number[])[], keepStates: boolean): { sums: tf.Tensor2D; states: tf.Tensor2D | null } & PassOrder {
    const hidden = ENCODER_SHAPE.hiddenDim;
    const blocks: number[][] = [];
    const groups = new Map<number, number[]>();
    const empty: number[] = [];
    sequences.forEach((s, i) => {
      if (s.length === 0) empty.push(i);
      else if (s.length > SHORT_SEQUENCE_MAX) blocks.push([i]);
      else groups.set(s.length, [...(groups.get(s.length) ?? []), i]);
    });
    for (const length of [...groups.keys()].sort((a, b) => a - b)) blocks.push(groups.get(length)!);
    const outputs = blocks.map((b) => this.encodeBlock(b.map((i) => sequences[i]!), keepStates));
    const order = [...blocks.flat(), ...empty];
    const zeros = (width: number) => (empty.length > 0 ? [tf.zeros([empty.length, width]) as tf.Tensor2D] : []);
    const cat = (parts: tf.Tensor2D[]) => (parts.length === 1 ? parts[0]! : (tf.concat(parts, 0) as tf.Tensor2D));
    let sums: tf.Tensor2D;
    if (keepStates) {
      sums = cat([...outputs.map((o) => o.sums), ...zeros(hidden)]);
    } else {
      // The skipped last projection, once per sequence: sum(x) + sum(h) W + n b (empty
      // sequences: zero sums and n = 0, so an exact zero row).
      const ffnOut = this.layers[this.layers.length - 1]!.ffnOut;
      const counts = tf.tensor2d(order.map((i) => sequences[i]!.length), [order.length, 1]);
      const hiddenSums = cat([...outputs.map((o) => o.hiddenSums!), ...zeros(ffnOut.kernel.shape[0])]);
      const xSums = cat([...outputs.map((o) => o.sums), ...zeros(hidden)]);
      sums = tf.add(tf.add(xSums, tf.matMul(hiddenSums, ffnOut.kernel)), tf.mul(counts, ffnOut.bias)) as tf.Tensor2D;
    }
    const stateBlocks = outputs.flatMap((o) => (o.states ? [o.states] : []));
    const states = !keepStates ? null : stateBlocks.length === 0 ? (tf.zeros([0, hidden]) as tf.Tensor2D) : cat(stateBlocks);
    return { sums, states, order };
  }

  /**
   * Like `sequenceSums`, but rows stay in the encoder's pass order (`order` gives each row's
   * input index): the caller reorders on the host, without a gather on the backend.
   */
  sequenceSumsInPassOrder(sequences: readonly (readonly number[])[], options: { keepStates?: boolean } = {}): { sums: tf.Tensor2D; states: tf.Tensor2D | null } & PassOrder {
    this.check(sequences);
    const keepStates = options.keepStates ?? false;
    let order: number[] = [];
    const [sums, states] = tf.tidy(() => {
      const out = this.run(sequences, keepStates);
      order = out.order;
      return out.states ? [out.sums, out.states] : [out.sums];
    }) as tf.Tensor2D[];
    return { sums: sums!, states: states ?? null, order };
  }

  /**
   * Sum of the final token states of each sequence, [sequences, hidden] in input order (zero
   * rows for empty sequences); with `keepStates`, also the final token states of all
   * sequences concatenated, [tokens, hidden]. A text's embedding pools the sums of its
   * windows. Each row depends on its own sequence only. Dispose the results.
   */
  sequenceSums(sequences: readonly (readonly number[])[], options: { keepStates?: boolean } = {}): { sums: tf.Tensor2D; states: tf.Tensor2D | null } {
    this.check(sequences);
    const keepStates = options.keepStates ?? false;
    const [sums, states] = tf.tidy(() => {
      const out = this.run(sequences, keepStates);
      const rank = new Array<number>(sequences.length);
      out.order.forEach((input, row) => (rank[input] = row));
      const identity = out.order.every((input, row) => input === row);
      const sums = identity ? out.sums : tf.gather(out.sums, tf.tensor1d(rank, 'int32'));
      if (!out.states) return [sums];
      if (identity) return [sums, out.states];
      // Token rows back in input order.
      const start: number[] = [];
      let row = 0;
      for (const input of out.order) {
        start[input] = row;
        row += sequences[input]!.length;
      }
      const index: number[] = [];
      sequences.forEach((s, i) => {
        for (let t = 0; t < s.length; t++) index.push(start[i]! + t);
      });
      return [sums, tf.gather(out.states, tf.tensor1d(index, 'int32'))];
    }) as tf.Tensor2D[];
    return { sums: sums!, states: states ?? null };
  }

  /**
   * Runs the transformer over sequences of token ids (each 0..maxTokens long) and returns the
   * final per-token states, right-padded. Call inside `tf.tidy` or dispose the result.
   */
  tokenStates(sequences: readonly (readonly number[])[]): TokenStates {
    this.check(sequences);
    const length = Math.max(1, ...sequences.map((s) => s.length));
    const hidden = ENCODER_SHAPE.hiddenDim;
    return tf.tidy(() => {
      const { states } = this.sequenceSums(sequences, { keepStates: true });
      // One gather into [states; zero row] lays the rows out right-padded.
      const realRows = states!.shape[0];
      const maskValues = new Float32Array(sequences.length * length);
      const index = new Int32Array(sequences.length * length).fill(realRows);
      let row = 0;
      sequences.forEach((s, b) => {
        for (let t = 0; t < s.length; t++) {
          index[b * length + t] = row + t;
          maskValues[b * length + t] = 1;
        }
        row += s.length;
      });
      const padded = tf.gather(tf.concat([states!, tf.zeros([1, hidden])], 0), tf.tensor1d(index, 'int32'));
      return {
        states: tf.reshape(padded, [sequences.length, length, hidden]) as tf.Tensor3D,
        mask: tf.tensor2d(maskValues, [sequences.length, length]),
      };
    });
  }

  /**
   * The sentence embedding of a set of token states: mean over real tokens, tanh projection,
   * L2 normalisation. `meanState` is [n, hidden].
   */
  pool(meanState: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
      const projected = tf.tanh(dense(meanState, this.pooler));
      const norm = tf.rsqrt(tf.maximum(tf.sum(tf.square(projected), -1, true), 1e-12));
      return tf.mul(projected, norm);
    });
  }

  /** Sentence embeddings of each sequence on its own, [batch, hidden] (the graph's output). */
  embed(sequences: readonly (readonly number[])[]): tf.Tensor2D {
    return tf.tidy(() => {
      const { sums } = this.sequenceSums(sequences);
      const counts = tf.tensor2d(sequences.map((s) => Math.max(1, s.length)), [sequences.length, 1]);
      return this.pool(tf.div(sums, counts) as tf.Tensor2D);
    });
  }

  dispose(): void {
    this.tables.dispose();
    tf.dispose(this.owned);
  }
}
