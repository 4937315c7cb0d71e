/**
 * Embeddings of rendered outcome texts ("<instructions> Answer: <option>"), cached by text.
 * Questions repeat across requests far more than states do (the same rubric over many
 * documents), so after warm-up most requests encode no question text at all.
 * @module
 */
import { LRUCache } from 'lru-cache';

/** Maximum number of outcome embeddings kept (2 KiB each: 8 MiB at most). */
export const OUTCOME_CACHE_ENTRIES = 4096;

/** Texts longer than this many characters are embedded but not kept. */
const MAX_CACHED_TEXT = 4096;

export class OutcomeCache {
  private readonly lru = new LRUCache<string, Float32Array>({ max: OUTCOME_CACHE_ENTRIES });
  /** Encoder passes run for outcome texts. */
  passes = 0;

  constructor(private readonly embedTexts: (texts: string[], signal?: AbortSignal) => Promise<Float32Array[]>) {}

  /**
   * Embeds every distinct text among `texts` in one pass at most; returns text -> embedding.
   * The pass stops at its next window once `signal` aborts (and rejects with its reason).
   */
  async embed(modelId: string, texts: readonly string[], signal?: AbortSignal): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const missing = new Set<string>();
    for (const text of texts) {
      if (out.has(text) || missing.has(text)) continue;
      const hit = this.lru.get(`${modelId}\u0000${text}`);
      if (hit) out.set(text, hit);
      else missing.add(text);
    }
    if (missing.size > 0) {
      this.passes++;
      const vectors = await this.embedTexts([...missing], signal);
      [...missing].forEach((text, i) => {
        out.set(text, vectors[i]!);
        if (text.length <= MAX_CACHED_TEXT) this.lru.set(`${modelId}\u0000${text}`, vectors[i]!);
      });
    }
    return out;
  }
}
