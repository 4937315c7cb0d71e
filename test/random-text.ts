/** Seeded random inputs for the heads' tests (no encoder needed). */
import type { TextRep } from '../src/heads/late.js';

/** A seeded generator of uniform numbers in [-0.5, 0.5). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 2 ** 32 - 0.5;
  };
}

/** A text of n tokens with random states and ids (ids overlap the state's for exact matches). */
export function text(seed: number, n: number): TextRep {
  const r = seeded(seed);
  const pooled = Float32Array.from({ length: 512 }, () => r());
  const norm = Math.hypot(...pooled);
  return {
    tokens: Float32Array.from({ length: n * 512 }, () => r()),
    n,
    pooled: n === 0 ? new Float32Array(512) : pooled.map((x) => x / norm),
    ids: Array.from({ length: n }, () => Math.floor((r() + 0.5) * 60)),
  };
}
