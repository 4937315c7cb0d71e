/**
 * A local, ignored cache of frozen-encoder outputs (per-token states and pooled vectors) for
 * every text training reads, keyed by the text's hash and the encoder package version. Missing
 * texts are encoded once by child processes, one per core, each writing a shard.
 * @module
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flattenWhitespace } from '../canonical/index.js';
import { repoRoot } from './data.js';
import type { Tokenizer } from '../tokenizer/index.js';

/** One encoded text: per-token states [n, dim] row-major and the pooled sentence vector. */
export interface TextEncoding {
  tokens: Float32Array;
  n: number;
  pooled: Float32Array;
}

// The tokenizer is part of the key: since unknown characters became one token each (not one per
// run), texts with such characters have other ids, so older entries must not be reused
// (EVALMODEL_ENCODER_TAG reads a cache written under another key).
export const ENCODER_TAG = process.env.EVALMODEL_ENCODER_TAG ?? 'use-lite@energetic-ai-0.2.0+char-unknowns';
const DIM = 512;
/** Tokens per shard at most (512 floats each: 400k tokens is 800 MiB). */
const SHARD_TOKENS = 400_000;

/** The cache folder: $EVALMODEL_CACHE, else .cache/encodings in the repository. */
export function cacheDir(): string {
  return process.env.EVALMODEL_CACHE ?? path.join(repoRoot(), '.cache', 'encodings');
}

export function textKey(text: string): string {
  return createHash('sha1').update(ENCODER_TAG).update('\u0000').update(text).digest('hex');
}

/** A file's bytes in a SharedArrayBuffer. */
function readShared(file: string): Uint8Array {
  const size = statSync(file).size;
  const view = new Uint8Array(new SharedArrayBuffer(size));
  const fd = openSync(file, 'r');
  try {
    for (let at = 0; at < size; ) at += readSync(fd, view, at, Math.min(1 << 30, size - at), at);
  } finally {
    closeSync(fd);
  }
  return view;
}

/** Loaded shards: text key -> encoding (views into the shard buffers). */
export class EncodingStore {
  private readonly map = new Map<string, TextEncoding>();
  private static readonly EMPTY: TextEncoding = { tokens: new Float32Array(0), n: 0, pooled: new Float32Array(DIM) };

  /**
   * `shared`: shard bytes go into SharedArrayBuffers, so that worker threads given these
   * encodings (structured clone) read the same memory instead of copies (reader training runs
   * its ensemble members as threads over one copy of several GB of encodings).
   */
  constructor(
    readonly dir: string,
    private readonly shared = false,
  ) {
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) this.loadShard(path.join(dir, f.slice(0, -5)));
  }

  private loadShard(prefix: string): void {
    const meta = JSON.parse(readFileSync(`${prefix}.json`, 'utf8')) as { dim: number; index: { key: string; row: number; n: number; p: number }[] };
    const read = this.shared ? readShared : readFileSync;
    const tb = read(`${prefix}.tokens.f32`);
    const pb = read(`${prefix}.pooled.f32`);
    const tokens = new Float32Array(tb.buffer, tb.byteOffset, tb.byteLength / 4);
    const pooled = new Float32Array(pb.buffer, pb.byteOffset, pb.byteLength / 4);
    for (const e of meta.index) {
      this.map.set(e.key, {
        tokens: tokens.subarray(e.row * DIM, (e.row + e.n) * DIM),
        n: e.n,
        pooled: pooled.subarray(e.p * DIM, (e.p + 1) * DIM),
      });
    }
  }

  has(text: string): boolean {
    return text === '' || this.map.has(textKey(text));
  }

  get(text: string): TextEncoding {
    if (text === '') return EncodingStore.EMPTY;
    const e = this.map.get(textKey(text));
    if (!e) throw new Error(`text not in the encoding cache: ${JSON.stringify(text.slice(0, 80))}`);
    return e;
  }

  /** Encodes every text not yet cached, with `workers` child processes; then loads the shards. */
  async ensure(texts: Iterable<string>, tokenizer: Tokenizer, workers = 2): Promise<void> {
    const missing = new Map<string, number[]>();
    for (const t of texts) {
      if (this.has(t) || missing.has(textKey(t))) continue;
      missing.set(textKey(t), tokenizer.encode(flattenWhitespace(t)));
    }
    if (missing.size === 0) return;
    const jobs = [...missing].map(([key, ids]) => ({ key, ids })).sort((a, b) => a.ids.length - b.ids.length);
    const tokensTotal = jobs.reduce((s, j) => s + j.ids.length, 0);
    process.stderr.write(`[cache] encoding ${jobs.length} texts (${tokensTotal} tokens) in ${workers} processes\n`);
    // A shard is read back whole with readFileSync, which refuses files over 2 GiB: rounds of
    // at most SHARD_TOKENS tokens per worker keep every shard well under that.
    let round = 0;
    for (let start = 0; start < jobs.length; round++) {
      let end = start;
      let size = 0;
      while (end < jobs.length && size < SHARD_TOKENS * workers) size += jobs[end++]!.ids.length + 1;
      await this.encodeRound(jobs.slice(start, end), workers, `${Date.now().toString(36)}-${round}`);
      start = end;
    }
  }

  private async encodeRound(jobs: { key: string; ids: number[] }[], workers: number, stamp: string): Promise<void> {
    const shards = Array.from({ length: workers }, () => [] as typeof jobs);
    // Deal by cost so both workers take about as long.
    const cost = new Array<number>(workers).fill(0);
    for (const job of [...jobs].reverse()) {
      const w = cost.indexOf(Math.min(...cost));
      shards[w]!.push(job);
      cost[w]! += job.ids.length + 8;
    }
    const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'encode-worker.js');
    await Promise.all(
      shards.map((shard, i) => {
        if (shard.length === 0) return Promise.resolve();
        shard.sort((a, b) => a.ids.length - b.ids.length);
        const jobsFile = path.join(this.dir, `jobs-${stamp}-${i}.tmp`);
        writeFileSync(jobsFile, JSON.stringify(shard));
        return new Promise<void>((resolve, reject) => {
          const child = fork(worker, [jobsFile, path.join(this.dir, `shard-${stamp}-${i}`)], { stdio: 'inherit' });
          child.on('exit', (code) => {
            if (code === 0) {
              rmSync(jobsFile, { force: true });
              resolve();
            } else reject(new Error(`encode worker ${i} exited with ${code}`));
          });
        });
      }),
    );
    for (let i = 0; i < workers; i++) {
      const prefix = path.join(this.dir, `shard-${stamp}-${i}`);
      if (existsSync(`${prefix}.json`)) this.loadShard(prefix);
    }
  }
}
