/**
 * The state-independent half of alignment (late.ts, alignTexts), kept per text: its token
 * states normalised to unit length, and the unit-length mean of those. A rubric is asked about
 * many states, so its texts are normalised once, not once per request (measured on
 * jevbench-sample: about 1.5 ms of a request's 10 ms alignment; docs/performance.md).
 *
 * Kept in a WeakMap keyed by the text's representation object, so an entry lives exactly as
 * long as the question-text cache (or a training corpus) holds that text. Each text is
 * normalised on its own, so the values never depend on which other texts share a request.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';

/** What alignTexts reads of a text; `tokens` is [n, hidden] row-major. */
export interface NormSource {
  tokens: Float32Array;
  n: number;
}

export interface TextNorms {
  /** Token states scaled to unit length, [n, hidden]. */
  tokens: Float32Array;
  /** The mean of `tokens`, scaled to unit length, [hidden]; zeros for an empty text. */
  mean: Float32Array;
}

const kept = new WeakMap<NormSource, TextNorms>();

/** Rows of `x` scaled to unit length (rows of zeros stay zeros). */
export function rowNormalise(x: tf.Tensor2D): tf.Tensor2D {
  return tf.mul(x, tf.rsqrt(tf.maximum(tf.sum(tf.square(x), 1, true), 1e-12)));
}

/** The normalised token states and mean of each text, computed once per text object. */
export function textNorms(texts: readonly NormSource[], hidden: number): TextNorms[] {
  return texts.map((t) => {
    let hit = kept.get(t);
    if (!hit) {
      hit = t.n === 0 ? { tokens: new Float32Array(0), mean: new Float32Array(hidden) } : normalise(t, hidden);
      kept.set(t, hit);
    }
    return hit;
  });
}

function normalise(t: NormSource, hidden: number): TextNorms {
  const [tokens, mean] = tf.tidy(() => {
    const z = rowNormalise(tf.tensor2d(t.tokens.subarray(0, t.n * hidden), [t.n, hidden]));
    return [z, rowNormalise(tf.mean(z, 0, true))];
  });
  const out = { tokens: tokens!.dataSync() as Float32Array, mean: mean!.dataSync() as Float32Array };
  tf.dispose([tokens!, mean!]);
  return out;
}
