/**
 * The case format `npm run data` writes (one JSON object per line), shared with the trainer:
 * the corpus's format plus `source` (public set name, `corpus/<file>` or `generated/<kind>`),
 * an optional `pair` group (cases of a group share a split and belong in one batch) and an
 * optional per-question sampling `weight` (1 when absent).
 * @module
 */
import type { Question, State } from '../../types.js';
import type { Gold, SplitName } from '../data.js';

export interface DataCase {
  id: string;
  source: string;
  state: State;
  questions: Record<string, Question>;
  gold: Record<string, Gold>;
  pair?: string;
  weight?: number;
}

/** A converted case and the split it was assigned to. */
export interface Placed {
  split: SplitName;
  case: DataCase;
}

/** A public set's row as read from `data.jsonl`. */
export type Row = Record<string, unknown>;
