/**
 * The reader's weight file and manifest: the parameters of each ensemble member stored as IEEE
 * half floats (fp16) in `paramShapes` order, member after member, with the shape, temperatures
 * per question type and option-count bucket, and a sha256 of the bytes; validated at load with
 * a precise message for each problem.
 *
 * A file written before the ordinal score term existed lacks its parameters (`ORDINAL`): its
 * manifest has no `ordinal: true`, so its table skips them and they load as zeros, which makes
 * the term exactly 0 (the reader answers as before). One forward pass serves both, with no
 * second code path; training writes `ordinal: true`. The field-pair term (`FIELD_PAIR`) likewise,
 * with `fieldPair: true`.
 * @module
 */
import { sha256Hex } from '../sha256.js';
import { FIELD_PAIR, ORDINAL, paramShapes, type ReaderShape } from './architecture.js';

export interface ReaderManifest {
  format: 'evalmodel-reader/1';
  weights: string;
  sha256: string;
  dtype: 'float16';
  shape: ReaderShape;
  /** Ensemble members (their logits are averaged). */
  members: number;
  temperatures: Record<string, number>;
  /** True when the file holds the ordinal term's parameters (absent: they read as zeros). */
  ordinal?: boolean;
  /** True when the file holds the field-pair term's parameters (absent: they read as zeros). */
  fieldPair?: boolean;
  [extra: string]: unknown;
}

/** Terms added to the architecture after weights shipped: the manifest flag that says a file holds them, and their parameters' prefix. */
const OPTIONAL_TERMS = { ordinal: ORDINAL, fieldPair: FIELD_PAIR } as const;

/** Option-count buckets that get their own temperature. */
export const BUCKETS = ['noul', 'choice:2', 'choice:3-4', 'choice:5-8', 'choice:9+', 'score:2-3', 'score:4-5', 'score:6+'] as const;

export function bucketOf(type: 'noul' | 'choice' | 'score', outcomes: number): (typeof BUCKETS)[number] {
  if (type === 'noul') return 'noul';
  if (type === 'choice') return outcomes <= 2 ? 'choice:2' : outcomes <= 4 ? 'choice:3-4' : outcomes <= 8 ? 'choice:5-8' : 'choice:9+';
  return outcomes <= 3 ? 'score:2-3' : outcomes <= 5 ? 'score:4-5' : 'score:6+';
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 -> fp16 bits, rounding to nearest even (normals and subnormals; overflow to inf). */
export function toHalf(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rest > mid || (rest === mid && half & 1) ? 1 : 0));
  }
  const half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}

export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Encodes members' parameters (by name) into the weight file's bytes. */
export function encodeParams(shape: ReaderShape, members: readonly Record<string, Float32Array>[]): Uint8Array {
  const shapes = paramShapes(shape);
  const total = Object.values(shapes).reduce((s, sh) => s + sh.reduce((a, b) => a * b, 1), 0);
  const out = new Uint16Array(total * members.length);
  let at = 0;
  for (const values of members) {
    for (const [name, sh] of Object.entries(shapes)) {
      const v = values[name];
      const size = sh.reduce((a, b) => a * b, 1);
      if (!v || v.length !== size) throw new Error(`reader: parameter ${name} missing or of the wrong size`);
      for (let i = 0; i < size; i++) out[at + i] = toHalf(v[i]!);
      at += size;
    }
  }
  return new Uint8Array(out.buffer);
}

/** Checks a manifest against its bytes and decodes the parameters; throws with a precise message. */
export function decodeParams(manifest: ReaderManifest, bytes: Uint8Array): Record<string, Float32Array>[] {
  if (manifest.format !== 'evalmodel-reader/1') throw new Error(`reader: unknown format ${String(manifest.format)}`);
  if (manifest.dtype !== 'float16') throw new Error(`reader: unknown dtype ${String(manifest.dtype)}`);
  const sha = sha256Hex(bytes);
  if (sha !== manifest.sha256) throw new Error(`reader: weight file hash ${sha} does not match the manifest's ${manifest.sha256}`);
  const s = manifest.shape;
  for (const k of ['width', 'heads', 'layers', 'ffn', 'mlp'] as const) {
    if (!Number.isInteger(s?.[k]) || s[k] < 1 || s[k] > 4096) throw new Error(`reader: bad shape.${k} ${String(s?.[k])}`);
  }
  if (!Number.isInteger(manifest.members) || manifest.members < 1 || manifest.members > 8) throw new Error(`reader: bad member count ${String(manifest.members)}`);
  if (s.width % s.heads !== 0) throw new Error(`reader: width ${s.width} is not a multiple of heads ${s.heads}`);
  for (const b of BUCKETS) {
    const t = manifest.temperatures?.[b];
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0.05 || t > 20) throw new Error(`reader: temperature for ${b} missing or out of range (${String(t)})`);
  }
  for (const flag of Object.keys(OPTIONAL_TERMS) as (keyof typeof OPTIONAL_TERMS)[]) {
    if (manifest[flag] !== undefined && manifest[flag] !== true) throw new Error(`reader: bad ${flag} flag ${String(manifest[flag])}`);
  }
  const all = paramShapes(s);
  const stored = (name: string) => Object.entries(OPTIONAL_TERMS).every(([flag, prefix]) => manifest[flag] === true || !name.startsWith(prefix));
  const shapes = Object.fromEntries(Object.entries(all).filter(([name]) => stored(name)));
  const total = Object.values(shapes).reduce((acc, sh) => acc + sh.reduce((a, b) => a * b, 1), 0);
  if (bytes.byteLength !== total * 2 * manifest.members) throw new Error(`reader: weight file has ${bytes.byteLength} bytes, ${manifest.members} members of this shape need ${total * 2 * manifest.members}`);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const halves = new Uint16Array(copy.buffer);
  let at = 0;
  return Array.from({ length: manifest.members }, () => {
    const out: Record<string, Float32Array> = {};
    for (const [name, sh] of Object.entries(all)) {
      const size = sh.reduce((a, b) => a * b, 1);
      const v = new Float32Array(size);
      if (!stored(name)) {
        out[name] = v;
        continue;
      }
      for (let i = 0; i < size; i++) v[i] = fromHalf(halves[at + i]!);
      out[name] = v;
      at += size;
    }
    return out;
  });
}
