/**
 * Serving the reader: the raw logits of a request's questions against one state in a few
 * forward passes.
 *
 * Every question's logits depend on its own texts and the state only, whatever else shares its
 * batch: every row of every text is computed on its own (row-wise products, layer norms and
 * attention over the state), a text's readout sums only its own rows (other rows add exact
 * zeros, or exp(-1e9) = 0 in the attention pooling), and the state's padding is the same for
 * all questions of a request. So questions may be chunked, or sent to a helper thread.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { paramShapes, type ReaderShape } from './architecture.js';
import { decodeParams, type ReaderManifest } from './weights.js';
import { buildReaderBatch, type ReaderBatch, type ReaderQuestion, type ReaderText } from './batch.js';
import { packParams, readerForward, sharedInputs, type PackedParams, type ReaderParams } from './forward.js';

/** A loaded reader: one set of constant parameters per ensemble member. */
export interface LoadedReader {
  shape: ReaderShape;
  members: ReaderParams[];
  temperatures: Record<string, number>;
  /** Per member, its matrices packed for our WebAssembly kernel (made at first use; empty off wasm). */
  packed?: PackedParams[];
}

/** Builds a reader from its manifest and weight bytes (validated by `decodeParams`). */
export function loadReader(manifest: ReaderManifest, bytes: Uint8Array): LoadedReader {
  const shapes = paramShapes(manifest.shape);
  const members = decodeParams(manifest, bytes).map((values) =>
    Object.fromEntries(Object.entries(shapes).map(([name, shape]) => [name, tf.keep(tf.tensor(values[name]!, shape))])),
  );
  return { shape: manifest.shape, members, temperatures: manifest.temperatures };
}


/** Text rows of one chunk at most; and (rows x heads x state tokens) attention cells at most. */
export const CHUNK_ROWS = 2048;
export const CHUNK_TEXTS = 512;
export const CHUNK_CELLS = 1 << 23;

const rowsOf = (q: ReaderQuestion) => q.instructions.n + q.lines.reduce((s, l) => s + l.n, 0);

/** Consecutive runs of questions under the bounds (a question over a bound is a chunk alone). */
export function chunkQuestions(questions: readonly ReaderQuestion[], stateTokens: number, heads: number): number[][] {
  const maxRows = Math.min(CHUNK_ROWS, Math.floor(CHUNK_CELLS / (heads * Math.max(8, stateTokens))));
  const chunks: number[][] = [];
  let current: number[] = [];
  let rows = 0;
  let texts = 0;
  questions.forEach((q, i) => {
    const r = rowsOf(q);
    const t = 1 + q.lines.length;
    if (current.length > 0 && (rows + r > maxRows || texts + t > CHUNK_TEXTS)) {
      chunks.push(current);
      current = [];
      rows = 0;
      texts = 0;
    }
    current.push(i);
    rows += r;
    texts += t;
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Flat per-type logits of one member on one batch, as `readerForward` returns them (read back). */
export interface FlatLogits {
  noul?: ArrayLike<number> | undefined;
  choice?: ArrayLike<number> | undefined;
  score?: ArrayLike<number> | undefined;
}

/** One member's logits per question of a batch, in its order: noul [yes logit, 0]; else one per outcome. */
export function questionLogits(batch: Pick<ReaderBatch, 'order' | 'choice' | 'score'>, flat: FlatLogits): number[][] {
  return batch.order.map((o) => {
    if (o.type === 'noul') return [flat.noul![o.index]!, 0];
    const values = o.type === 'choice' ? flat.choice! : flat.score!;
    const slots = (o.type === 'choice' ? batch.choice! : batch.score!).slots[o.index]!;
    return slots.slice(0, o.outcomes).map((j) => values[j]!);
  });
}

/** The members' logits of each question averaged (in float64), into `out` at the chunk's indices. */
export function averageInto(out: number[][], chunk: readonly number[], perMember: readonly number[][][]): void {
  chunk.forEach((qi, k) => {
    const all = perMember.map((m) => m[k]!);
    out[qi] = all[0]!.map((_, j) => all.reduce((s, l) => s + l[j]!, 0) / all.length);
  });
}

/**
 * Raw logits of every question against one state, in input order, averaged over the members:
 * noul [yes logit, 0]; choice and score one bounded logit per outcome.
 */
export function readerLogits(reader: LoadedReader, state: ReaderText, questions: readonly ReaderQuestion[]): number[][] {
  const out: number[][] = new Array<number[]>(questions.length);
  for (const chunk of chunkQuestions(questions, state.n, reader.shape.heads)) {
    const qs = chunk.map((i) => questions[i]!);
    reader.packed ??= reader.members.map(packParams);
    const packed = reader.packed;
    const perMember = tf.tidy(() => {
      const batch = buildReaderBatch([{ state, questions: qs }]);
      const shared = sharedInputs(batch);
      return reader.members.map((p, m) => {
        const res = readerForward(p, reader.shape, batch, false, shared, packed[m]);
        return questionLogits(batch, { noul: res.noul?.dataSync(), choice: res.choice?.dataSync(), score: res.score?.dataSync() });
      });
    });
    averageInto(out, chunk, perMember);
  }
  return out;
}
