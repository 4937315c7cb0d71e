/**
 * Prototype measurements for the row split of one window (src/encoder/rows.ts): whether the
 * two sides' rows equal the single pass bit for bit, and what each side costs in one thread
 * against the whole window. Not part of the benchmark's report.
 *
 *   node dist/bench/speed/rows-proto.js
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/encoder/backend.js';
import { encodeRows, encodeRowsHere, swapFloats } from '../../src/encoder/rows.js';
import { TransformerEncoder } from '../../src/encoder/transformer.js';
import { loadEncoderWeights } from '../../src/encoder/weights.js';
import { median } from './report.js';

await initBackend('wasm');
const enc = new TransformerEncoder(await loadEncoderWeights());
const ids = (n: number, seed: number) => Array.from({ length: n }, (_, i) => 100 + ((i * 7919 + seed * 104729) % 7000));
const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

let bad = 0;
for (const [n, cut] of [[128, 64], [128, 1], [128, 127], [52, 26], [100, 37], [33, 16], [128, 90]] as const) {
  const w = ids(n, n + cut);
  const full = enc.sequenceSums([w], { keepStates: true });
  const want = full.states!.dataSync() as Float32Array;
  tf.dispose([full.sums, full.states!]);
  const [[a], [b]] = encodeRowsHere(enc, [w], [cut]) as [[Float32Array], [Float32Array]];
  const joined = new Float32Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  const ok = same(joined, want);
  if (!ok) bad++;
  let maxDiff = 0;
  joined.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - want[i]!))));
  console.log(`window ${n}, cut ${cut}: ${ok ? 'bit-identical' : `DIFFERENT (max |diff| ${maxDiff})`}`);
}

function time(f: () => void, reps = 30): number {
  for (let i = 0; i < 5; i++) f();
  const t: number[] = [];
  for (let i = 0; i < reps; i++) {
    const s = performance.now();
    f();
    t.push(performance.now() - s);
  }
  return median(t);
}

// One side alone, fed the other side's rows precomputed: its compute without any waiting.
function sideOnly(w: number[][], cut: number[], side: 0 | 1): () => void {
  const other = encodeRows(enc, w, cut, side === 0 ? 1 : 0);
  const theirs: Float32Array[] = [];
  let r = other.next();
  while (!r.done) {
    theirs.push(r.value);
    r = other.next(new Float32Array(swapFloats(w, cut, side, theirs.length === 1 ? 256 : 512)));
  }
  return () => {
    const g = encodeRows(enc, w, cut, side);
    let s = g.next();
    let i = 0;
    while (!s.done) s = g.next(theirs[i++]);
  };
}
console.log('\nwindows    cuts  whole ms  side0 ms  side1 ms');
for (const [ns, cut] of [[[128], [64]], [[52], [26]], [[128], [80]], [[100], [50]], [[128, 52], [64, 26]], [[128, 128], [64, 64]]] as const) {
  const w = ns.map((n, i) => ids(n, 3 + i));
  const whole = time(() => {
    for (const x of w) {
      const o = enc.sequenceSums([x], { keepStates: true });
      o.states!.dataSync();
      tf.dispose([o.sums, o.states!]);
    }
  });
  console.log(`${ns.join('+').padStart(7)} ${cut.join('+').padStart(6)} ${whole.toFixed(2).padStart(9)} ${time(sideOnly(w, [...cut], 0)).toFixed(2).padStart(9)} ${time(sideOnly(w, [...cut], 1)).toFixed(2).padStart(9)}`);
}
for (const n of [26, 33, 40, 52, 64, 80, 96, 128]) {
  const w = ids(n, 5);
  const whole = time(() => {
    const o = enc.sequenceSums([w], { keepStates: true });
    o.states!.dataSync();
    tf.dispose([o.sums, o.states!]);
  });
  console.log(`whole window of ${n}: ${whole.toFixed(2)} ms`);
}
process.exitCode = bad > 0 ? 1 : 0;
