/**
 * Loading and running the trained late-interaction heads (see `late.ts`): the weight file and
 * its manifest written by `npm run train`, validated at load (shapes, hash, temperatures), and
 * one function that turns a question's encodings into calibrated outcome probabilities.
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { RenderedQuestion } from '../canonical/index.js';
import { softmax } from './answers.js';
import { sha256Hex } from './sha256.js';
import { BUCKETS, bucketOf, PARAM_SHAPES, type Params, type TextRep } from './late.js';
import { requestLogits } from './request-logits.js';

/** The `heads` entry of a trained model in weights/manifest.json. */
export interface TrainedHeadsSpec {
  kind: 'late-interaction';
  /** Weight manifest, relative to the weights folder. */
  manifest: string;
  /** The reader's weight manifest (src/heads/reader), when the model corrects these heads with it. */
  reader?: string;
}

/** The weight manifest written by training. */
export interface HeadsManifest {
  format: 'evalmodel-heads/1';
  weights: string;
  sha256: string;
  /** Ensemble size: parameters are named `m<i>.<name>` for i < members. */
  members: number;
  params: { name: string; shape: number[]; offset: number }[];
  temperatures: Record<string, number>;
  /** Weight of the zero-shot term per question type (absent: 0). */
  mix?: Record<string, number>;
  [extra: string]: unknown;
}

/** Loaded heads: one set of constant parameter tensors per ensemble member, plus temperatures. */
export interface TrainedHeads {
  members: Params[];
  temperatures: Record<string, number>;
  /** Weight of the zero-shot term per question type. */
  mix: Record<'noul' | 'choice' | 'score', number>;
}

/** Checks a manifest and its weight bytes against each other; throws with a precise message. */
export function validateHeads(manifest: HeadsManifest, bytes: Uint8Array): void {
  if (manifest.format !== 'evalmodel-heads/1') throw new Error(`heads: unknown format ${String(manifest.format)}`);
  const sha = sha256Hex(bytes);
  if (sha !== manifest.sha256) throw new Error(`heads: weight file hash ${sha} does not match the manifest's ${manifest.sha256}`);
  const names = new Set(manifest.params.map((p) => p.name));
  if (!Number.isInteger(manifest.members) || manifest.members < 1 || manifest.members > 16) throw new Error(`heads: bad ensemble size ${String(manifest.members)}`);
  const expected = Array.from({ length: manifest.members }, (_, i) => Object.entries(PARAM_SHAPES).map(([n, shape]) => [`m${i}.${n}`, shape] as const)).flat();
  for (const [name, shape] of expected) {
    const entry = manifest.params.find((p) => p.name === name);
    if (!entry) throw new Error(`heads: parameter ${name} missing`);
    if (entry.shape.join('x') !== shape.join('x')) throw new Error(`heads: parameter ${name} has shape ${entry.shape.join('x')}, expected ${shape.join('x')}`);
    const size = shape.reduce((a, b) => a * b, 1);
    if ((entry.offset + size) * 4 > bytes.byteLength) throw new Error(`heads: parameter ${name} runs past the end of the weight file`);
    names.delete(name);
  }
  if (names.size > 0) throw new Error(`heads: unexpected parameters ${[...names].join(', ')}`);
  for (const [type, w] of Object.entries(manifest.mix ?? {})) {
    if (!['noul', 'choice', 'score'].includes(type) || typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 5) throw new Error(`heads: bad mix weight for ${type} (${String(w)})`);
  }
  for (const b of BUCKETS) {
    const t = manifest.temperatures[b];
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0.05 || t > 20) throw new Error(`heads: temperature for ${b} missing or out of range (${String(t)})`);
  }
}

/** Builds heads from a manifest and the weight file's bytes (validated first). */
export function headsFromBytes(manifest: HeadsManifest, bytes: Uint8Array): TrainedHeads {
  validateHeads(manifest, bytes);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const floats = new Float32Array(copy.buffer);
  const members: Params[] = Array.from({ length: manifest.members }, () => ({}));
  for (const { name, shape, offset } of manifest.params) {
    const size = shape.reduce((a, b) => a * b, 1);
    const [member, key] = name.split('.') as [string, string];
    members[Number(member.slice(1))]![key] = tf.tensor(floats.slice(offset, offset + size), shape);
  }
  const mix = { noul: manifest.mix?.noul ?? 0, choice: manifest.mix?.choice ?? 0, score: manifest.mix?.score ?? 0 };
  return { members, temperatures: { ...manifest.temperatures }, mix };
}

const loaded = new Map<string, TrainedHeads>();
const provided = new Map<string, { manifest: HeadsManifest; bytes: Uint8Array }>();

/**
 * Browser seam: a page without a file system fetches the heads' manifest and weight file
 * itself and hands them over under the name the registry uses (`heads.manifest`), checked here.
 */
export function provideHeads(manifestName: string, manifest: HeadsManifest, bytes: Uint8Array): void {
  validateHeads(manifest, bytes);
  // Tensors are made at first use, once the engine has chosen its tfjs backend.
  provided.set(manifestName, { manifest, bytes });
  loaded.delete(`provided:${manifestName}`);
}

/** Loads (once per process) the heads a model's manifest entry names, from `weightsDir`. */
export function loadHeads(spec: TrainedHeadsSpec, weightsDir: string): TrainedHeads {
  const given = provided.get(spec.manifest);
  if (given) {
    const key = `provided:${spec.manifest}`;
    let heads = loaded.get(key);
    if (!heads) {
      heads = headsFromBytes(given.manifest, given.bytes);
      loaded.set(key, heads);
    }
    return heads;
  }
  const file = path.resolve(weightsDir, spec.manifest);
  let heads = loaded.get(file);
  if (!heads) {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as HeadsManifest;
    const bytes = readFileSync(path.resolve(path.dirname(file), manifest.weights));
    heads = headsFromBytes(manifest, bytes);
    loaded.set(file, heads);
  }
  return heads;
}

/**
 * Raw logits of one question's outcomes, in `rendered.keys` order, on the scale training used
 * (choice and score bounded). noul: [yes logit, 0], so that a softmax gives the sigmoid. The
 * request path batches questions ({@link requestLogits}); one question alone is a batch of one.
 */
export function questionLogits(params: Params | readonly Params[], state: TextRep, type: RenderedQuestion['type'], instructions: TextRep, lines: readonly TextRep[]): number[] {
  const members = Array.isArray(params) ? (params as readonly Params[]) : [params as Params];
  return requestLogits(members, state, [{ type, instructions, lines }])[0]!;
}

/** Calibrated outcome probabilities from raw logits (temperature per type and option count). */
export function calibrated(heads: Pick<TrainedHeads, 'temperatures'>, type: RenderedQuestion['type'], logits: readonly number[]): number[] {
  const t = heads.temperatures[bucketOf(type, logits.length)] ?? 1;
  return softmax(logits.map((l) => l / t));
}

/**
 * The zero-shot term of one question: cosine of the pooled state with each pooled outcome text,
 * over 0.05 (as evalmodel-1.12.0 answers); noul as [yes - no, 0] like the trained logits.
 */
export function zeroShotTerm(type: RenderedQuestion['type'], statePooled: Float32Array, outcomeVectors: readonly Float32Array[]): number[] {
  const cos = outcomeVectors.map((v) => {
    let d = 0;
    for (let i = 0; i < v.length; i++) d += v[i]! * statePooled[i]!;
    return d / 0.05;
  });
  return type === 'noul' ? [cos[0]! - cos[1]!, 0] : cos;
}
