/**
 * One window's rows on two threads. In a transformer layer only attention mixes rows, and it
 * needs every row's keys and values, nothing else: the layer norms, the query, key and value
 * projections, each query row's softmax and context, the output projection and the FFN all work
 * row by row. So a window can be cut into two row ranges, [0, cut) and [cut, length), each side
 * computing its own rows and swapping its keys and values with the other side once per layer.
 *
 * Results are bit-for-bit the single pass's (transformer.ts, encodeBlock): our kernel (and
 * XNNPACK where ours does not serve) computes each output row of a matrix product from that row
 * alone, in the same order whatever the number of rows, so a side's rows of every projection equal the same rows of the whole window's; the
 * swapped keys and values are those rows' exact float32 values, concatenated in row order; the
 * attention and softmax of a query row then see the very same operands. The sums and states
 * are taken over the joined rows (joinRows). `test/encoder-split.test.ts` checks it.
 *
 * A side is a generator so that it can be driven by anything that moves the swapped rows: a
 * test in one thread, or two worker threads over shared memory (rows-channel.ts).
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { attend, attentionResidual, dense, ffnHidden, projectHeads } from './layer.js';
import type { TransformerEncoder } from './transformer.js';
import { ENCODER_SHAPE } from './weights.js';

/** Rows of one window on one side: side 0 has [0, cut), side 1 [cut, length). */
function sideRows(length: number, cut: number, side: 0 | 1): { from: number; rows: number } {
  return side === 0 ? { from: 0, rows: cut } : { from: cut, rows: length - cut };
}

/**
 * Floats one side sends for one layer of width `width`: its keys and values of every window in
 * which the other side has rows (a side without rows in a window has no query there).
 */
export function swapFloats(windows: readonly (readonly number[])[], cuts: readonly number[], side: 0 | 1, width: number): number {
  const other = side === 0 ? 1 : 0;
  return windows.reduce((n, w, i) => (sideRows(w.length, cuts[i]!, other).rows > 0 ? n + 2 * sideRows(w.length, cuts[i]!, side).rows * width : n), 0);
}

/**
 * One side of a row job over several windows, each cut at its `cuts[i]` (0 <= cut <= length,
 * every window longer than SHORT_SEQUENCE_MAX, the single pass's per-head path). Side 0 computes
 * rows [0, cut) of every window, side 1 the rest; a side may hold all of a window or none of it,
 * so that the two sides hold equal shares of a pass of unequal windows (planRows). Yields once
 * per layer this side's keys and values (window by window where the other side has rows, per
 * head: key rows then value rows, [rows, depth] each) and takes the other side's in the same
 * layout; one swap per layer serves every window. Returns this side's final token states per
 * window, [rows, hidden] (empty where it has no rows). Throws if the other side's rows do not
 * come (undefined) or have the wrong size.
 */
export function* encodeRows(
  encoder: TransformerEncoder,
  windows: readonly (readonly number[])[],
  cuts: readonly number[],
  side: 0 | 1,
): Generator<Float32Array, Float32Array[], Float32Array | undefined> {
  const { layers } = encoder.prepared;
  const other = side === 0 ? 1 : 0;
  const parts = windows.map((ids, i) => ({ ids, ...sideRows(ids.length, cuts[i]!, side), otherRows: sideRows(ids.length, cuts[i]!, other).rows }));
  // Our rows' token states, once a layer has run (layer 0 reads the input tables instead).
  let xs: (tf.Tensor2D | null)[] | null = null;
  const held: tf.Tensor[] = [];
  try {
    for (const layer of layers) {
      const depth = layer.width / layer.heads;
      // Per window, per head: queries, keys, values of our rows, and the residual.
      const inputs = parts.map(({ ids, from, rows }, i): { heads: tf.Tensor2D[]; residual: tf.Tensor2D | null } => {
        if (rows === 0) return { heads: [], residual: null };
        const x = xs?.[i];
        if (x) return { heads: tf.tidy(() => projectHeads(layer, x)), residual: x };
        const [residual, ...heads] = tf.tidy(() => {
          const p = encoder.inputProjections([{ ids, from, rows }]);
          return [p.residual, ...p.heads];
        });
        return { heads, residual: residual! };
      });
      const projected = inputs.map((p) => p.heads);
      held.push(...projected.flat(), ...(xs ? [] : inputs.flatMap((p) => (p.residual ? [p.residual] : []))));
      const mine = new Float32Array(swapFloats(windows, cuts, side, layer.width));
      let at = 0;
      projected.forEach((p, i) => {
        if (parts[i]!.otherRows === 0 || parts[i]!.rows === 0) return;
        for (let h = 0; h < layer.heads; h++) {
          for (const t of [p[3 * h + 1]!, p[3 * h + 2]!]) {
            const values = t.dataSync() as Float32Array;
            mine.set(values, at);
            at += values.length;
          }
        }
      });
      const theirs = yield mine;
      if (!theirs || theirs.length !== swapFloats(windows, cuts, other, layer.width)) throw new Error("encoder rows: the other side's keys and values did not come");
      let from = 0;
      const next = parts.map(({ rows, otherRows }, i) =>
        rows === 0 ? null : tf.tidy(() => {
          const p = projected[i]!;
          const take = (own: tf.Tensor) => {
            if (otherRows === 0) return own as tf.Tensor2D;
            const peer = tf.tensor2d(theirs.subarray(from, from + otherRows * depth), [otherRows, depth]);
            from += otherRows * depth;
            return (side === 0 ? tf.concat([own, peer], 0) : tf.concat([peer, own], 0)) as tf.Tensor2D;
          };
          const contexts = layer.query.map((_, h) => {
            const keys = take(p[3 * h + 1]!);
            const values = take(p[3 * h + 2]!);
            return attend(p[3 * h]! as tf.Tensor2D, keys, values);
          });
          const context = (contexts.length === 1 ? contexts[0]! : tf.concat(contexts, 1)) as tf.Tensor2D;
          const attended = attentionResidual(layer, context, inputs[i]!.residual!);
          return tf.add(attended, dense(ffnHidden(layer, attended), layer.ffnOut)) as tf.Tensor2D;
        }),
      );
      tf.dispose(held.splice(0));
      if (xs) tf.dispose(xs.filter((x) => x !== null));
      xs = next;
    }
    return (xs ?? []).map((x) => (x ? (x.dataSync() as Float32Array).slice() : new Float32Array(0)));
  } finally {
    tf.dispose(held);
    if (xs) tf.dispose(xs.filter((x) => x !== null));
  }
}

/** Runs both sides in this thread (tests, and the timing prototype); returns each side's states. */
export function encodeRowsHere(encoder: TransformerEncoder, windows: readonly (readonly number[])[], cuts: readonly number[]): [Float32Array[], Float32Array[]] {
  const a = encodeRows(encoder, windows, cuts, 0);
  const b = encodeRows(encoder, windows, cuts, 1);
  let ra = a.next();
  let rb = b.next();
  while (!ra.done && !rb.done) {
    const mineA = ra.value;
    ra = a.next(rb.value);
    rb = b.next(mineA);
  }
  if (!ra.done || !rb.done) throw new Error('encoder rows: the sides got out of step');
  return [ra.value, rb.value];
}

/**
 * A cut window's results from both sides' final rows: its token states in row order and their
 * sum, taken as the single pass takes it (encodeBlock's rowSums) over the same rows, so the
 * same bits.
 */
export function joinRows(first: Float32Array, second: Float32Array, length: number): { sums: Float32Array; states: Float32Array } {
  const hidden = ENCODER_SHAPE.hiddenDim;
  const states = new Float32Array(first.length + second.length);
  states.set(first);
  states.set(second, first.length);
  const sum = tf.tidy(() => tf.sum(tf.tensor2d(states, [length, hidden]), 0, true));
  const sums = (sum.dataSync() as Float32Array).slice();
  sum.dispose();
  return { sums, states };
}
