/**
 * API keys: where they come from, how a presented key is checked, and which models a key may
 * use. Keys are held only as SHA-256 digests; a presented key is hashed and compared with every
 * configured digest through `crypto.timingSafeEqual`, with no early exit, so neither the key's
 * content nor its position in the list shows in the timing. Keys are never logged.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A key as configured: the secret and, optionally, the models it may send. */
export interface KeySpec {
  key: string;
  /** Model names (aliases or versioned ids) this key may send; absent or `null` means all. */
  models?: readonly string[] | null;
}

/** A configured key, without its secret. */
export interface ApiKey {
  /** Short, non-reversible id of the key (first 16 hex of its SHA-256), for rate-limit buckets. */
  readonly id: string;
  /** Models the key may send, or `null` for all. */
  readonly models: readonly string[] | null;
}

interface StoredKey extends ApiKey {
  readonly digest: Buffer;
}

/** Why a request failed authentication. */
export type AuthFailure = 'missing_api_key' | 'malformed_authorization' | 'invalid_api_key';

export type AuthResult = { ok: true; key: ApiKey } | { ok: false; reason: AuthFailure };

const digestOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** Environment variable holding comma-separated keys. */
export const KEYS_ENV = 'EVALMODEL_API_KEYS';

/** Parses `EVALMODEL_API_KEYS`: comma-separated keys, surrounding blanks trimmed, empties dropped. */
export function keysFromEnv(value: string | undefined): KeySpec[] {
  if (!value) return [];
  return value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0)
    .map((key) => ({ key }));
}

/**
 * Parses a keys file: one key per line, optionally scoped as `key:model1,model2`; blank lines
 * and lines starting with `#` are ignored; `*` in the model list means every model.
 */
export function parseKeysFile(text: string, source = 'keys file'): KeySpec[] {
  const specs: KeySpec[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const key = (colon < 0 ? line : line.slice(0, colon)).trim();
    if (key === '') throw new Error(`${source}, line ${index + 1}: empty key`);
    if (/\s/.test(key)) throw new Error(`${source}, line ${index + 1}: a key may not contain blanks`);
    if (colon < 0) {
      specs.push({ key });
      return;
    }
    const models = line
      .slice(colon + 1)
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m.length > 0);
    if (models.length === 0) throw new Error(`${source}, line ${index + 1}: a scoped key needs at least one model after ':'`);
    specs.push({ key, models: models.includes('*') ? null : models });
  });
  return specs;
}

/** Reads and parses a keys file. */
export function readKeysFile(file: string): KeySpec[] {
  return parseKeysFile(readFileSync(file, 'utf8'), file);
}

/** The configured keys. */
export class KeyRing {
  private readonly keys: StoredKey[];

  constructor(specs: readonly (KeySpec | string)[]) {
    const byDigest = new Map<string, StoredKey>();
    for (const raw of specs) {
      const spec = typeof raw === 'string' ? { key: raw } : raw;
      if (typeof spec.key !== 'string' || spec.key.length === 0) throw new Error('An API key must be a non-empty string');
      const digest = digestOf(spec.key);
      const hex = digest.toString('hex');
      const models = spec.models == null ? null : [...spec.models];
      const previous = byDigest.get(hex);
      // The same key listed twice: its scopes add up (null = all wins).
      const merged = previous === undefined ? models : previous.models === null || models === null ? null : [...new Set([...previous.models, ...models])];
      byDigest.set(hex, { id: hex.slice(0, 16), models: merged, digest });
    }
    this.keys = [...byDigest.values()];
  }

  /** Number of distinct keys. */
  get size(): number {
    return this.keys.length;
  }

  /** Whether any key is scoped to a subset of models. */
  get scoped(): boolean {
    return this.keys.some((k) => k.models !== null);
  }

  /** Checks an `Authorization` header value. */
  authenticate(header: string | undefined): AuthResult {
    if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing_api_key' };
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) return { ok: false, reason: 'malformed_authorization' };
    const presented = digestOf(match[1]!);
    let found: StoredKey | undefined;
    for (const key of this.keys) {
      // Every digest is compared, whatever matched before.
      if (timingSafeEqual(presented, key.digest) && found === undefined) found = key;
    }
    return found ? { ok: true, key: { id: found.id, models: found.models } } : { ok: false, reason: 'invalid_api_key' };
  }
}

/** Whether a listen address only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}
