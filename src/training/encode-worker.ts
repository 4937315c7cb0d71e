/**
 * Child process of the encoding cache: encodes a list of token-id sequences with the frozen
 * encoder (batched, windows of 128 tokens as `Encoder.encodeState` does) and writes the
 * per-token states and pooled vectors of each to a shard file. One process per core.
 * Usage: node encode-worker.js <jobs.json> <out-prefix>
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../encoder/backend.js';
import { TransformerEncoder } from '../encoder/transformer.js';
import { ENCODER_SHAPE, loadEncoderWeights } from '../encoder/weights.js';
import { toWindows } from '../encoder/index.js';

interface Job {
  key: string;
  ids: number[];
}

const [jobsFile, outPrefix] = process.argv.slice(2);
if (!jobsFile || !outPrefix) throw new Error('usage: encode-worker <jobs.json> <out-prefix>');
const jobs = JSON.parse(readFileSync(jobsFile, 'utf8')) as Job[];
await initBackend(process.env.EVALMODEL_TRAIN_BACKEND === 'cpu' ? 'cpu' : 'wasm');
const encoder = new TransformerEncoder(await loadEncoderWeights());
const H = ENCODER_SHAPE.hiddenDim;

const totalRows = jobs.reduce((s, j) => s + j.ids.length, 0);
const tokens = new Float32Array(totalRows * H);
const pooled = new Float32Array(jobs.length * H);
const index: { key: string; row: number; n: number; p: number }[] = [];

let row = 0;
const MAX_TOKENS = 4096;
let done = 0;
const started = Date.now();

/** Encodes a group of windows; `owners[w]` is the job index of window w. */
function run(group: { job: number; windows: number[][] }[]): void {
  const windows = group.flatMap((g) => g.windows);
  const states = tf.tidy(() => encoder.tokenStates(windows).states);
  const L = states.shape[1];
  const data = states.dataSync() as Float32Array;
  states.dispose();
  let w = 0;
  const means = new Float32Array(group.length * H);
  group.forEach((g, gi) => {
    const job = jobs[g.job]!;
    const start = row;
    for (const win of g.windows) {
      for (let t = 0; t < win.length; t++) {
        const src = (w * L + t) * H;
        tokens.set(data.subarray(src, src + H), row * H);
        for (let h = 0; h < H; h++) means[gi * H + h]! += data[src + h]!;
        row++;
      }
      w++;
    }
    const n = Math.max(1, job.ids.length);
    for (let h = 0; h < H; h++) means[gi * H + h]! /= n;
    index.push({ key: job.key, row: start, n: job.ids.length, p: g.job });
  });
  const p = tf.tidy(() => encoder.pool(tf.tensor2d(means, [group.length, H])));
  const pd = p.dataSync() as Float32Array;
  p.dispose();
  group.forEach((g, gi) => pooled.set(pd.subarray(gi * H, (gi + 1) * H), g.job * H));
  done += group.length;
}

let group: { job: number; windows: number[][] }[] = [];
let groupLen = 0;
for (let j = 0; j < jobs.length; j++) {
  const windows = toWindows(jobs[j]!.ids);
  const len = Math.max(...windows.map((w) => w.length));
  const count = group.reduce((s, g) => s + g.windows.length, 0) + windows.length;
  if (group.length > 0 && count * Math.max(len, groupLen) > MAX_TOKENS) {
    run(group);
    group = [];
    groupLen = 0;
  }
  group.push({ job: j, windows });
  groupLen = Math.max(groupLen, len);
  if (j > 0 && j % 2000 === 0) {
    process.stderr.write(`[encode ${outPrefix}] ${done}/${jobs.length} texts, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
}
if (group.length > 0) run(group);

writeFileSync(`${outPrefix}.tokens.f32`, Buffer.from(tokens.buffer, tokens.byteOffset, row * H * 4));
writeFileSync(`${outPrefix}.pooled.f32`, Buffer.from(pooled.buffer));
writeFileSync(`${outPrefix}.json`, JSON.stringify({ dim: H, rows: row, index }));
process.stderr.write(`[encode ${outPrefix}] done ${jobs.length} texts, ${row} tokens in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
