/**
 * The project's own corpus (`train/*.jsonl` of the shared data): every case kept as written,
 * with its `pair` group, in exactly the split {@link splitOf} gives it (the held-out figures of
 * the shipped heads depend on that split), and weighted up: it is the users' domain.
 * @module
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Question, State } from '../../types.js';
import { splitOf, type Gold } from '../data.js';
import type { Placed } from './types.js';
import { readJsonlRows } from './util.js';

/** Per-question sampling weight of corpus cases (public and generated cases weigh 1). */
export const CORPUS_WEIGHT = 3;

export function corpusCases(dir: string): Placed[] {
  const out: Placed[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
    for (const raw of readJsonlRows(path.join(dir, file))) {
      const id = String(raw.id);
      const gold: Record<string, Gold> = {};
      for (const [qid, g] of Object.entries((raw.gold ?? {}) as Record<string, unknown>)) {
        if (g === 'unknown' || g === null || g === undefined) continue;
        gold[qid] = g as Gold;
      }
      out.push({
        split: splitOf({ file, id }),
        case: {
          id,
          source: `corpus/${file}`,
          state: raw.state as State,
          questions: raw.questions as Record<string, Question>,
          gold,
          ...(typeof raw.pair === 'string' ? { pair: raw.pair } : {}),
          weight: CORPUS_WEIGHT,
        },
      });
    }
  }
  return out;
}
