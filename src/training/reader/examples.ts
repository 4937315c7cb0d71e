/**
 * Training examples of the reader: every case rendered as the engine renders it, with the
 * frozen encoder's cached outputs for its state and its question texts, and each question's
 * gold outcome. Cases come from the original corpus (split by `splitOf`) and from the converted
 * set of `npm run data` (already split into train/calib/test files).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { flattenWhitespace, renderQuestion, renderState } from '../../canonical/index.js';
import { pairSimilarities } from '../../heads/fields.js';
import { questionTexts } from '../../heads/texts.js';
import type { ReaderQuestion, ReaderText } from '../../heads/reader/batch.js';
import type { Tokenizer } from '../../tokenizer/index.js';
import type { Question, State } from '../../types.js';
import { dataDir, goldIndex, loadCases, repoRoot, rng, shuffled, splitOf, unitHash, type Case, type Gold, type SplitName } from '../data.js';
import type { EncodingStore } from '../encode-cache.js';

export interface TrainCase extends Case {
  split: SplitName;
  /** Source set (corpus file or public set). */
  source: string;
  pair?: string;
  /** Per-question sampling weight. */
  weight: number;
}

export interface ReaderItem extends ReaderQuestion {
  gold: number;
  weight: number;
}

export interface ReaderExample {
  id: string;
  source: string;
  pair?: string;
  state: ReaderText;
  items: ReaderItem[];
}

/** The corpus in ../shared/data/train, split by case as every earlier model was. */
export function corpusCases(dir: string, weight: number): TrainCase[] {
  return loadCases(dir).map((c) => ({ ...c, split: splitOf(c), source: `corpus/${c.file}`, weight, ...pairOf(c) }));
}

function pairOf(c: Case): { pair?: string } {
  const raw = (c as unknown as { pair?: unknown }).pair;
  return typeof raw === 'string' ? { pair: raw } : {};
}

/** The converted set written by `npm run data` (train.jsonl, calib.jsonl, test.jsonl). */
export function convertedCases(dir: string, skipSources: ReadonlySet<string>): TrainCase[] {
  const out: TrainCase[] = [];
  for (const split of ['train', 'calib', 'test'] as const) {
    const file = path.join(dir, `${split}.jsonl`);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const raw = JSON.parse(line) as { id: string; source?: string; state: State; questions: Record<string, Question>; gold: Record<string, Gold>; pair?: string; weight?: number };
      const source = raw.source ?? 'converted';
      if (skipSources.has(source) || source.startsWith('corpus/')) continue;
      const gold: Record<string, Gold> = {};
      for (const [qid, g] of Object.entries(raw.gold ?? {})) if (g !== null && g !== 'unknown' && Object.hasOwn(raw.questions, qid)) gold[qid] = g;
      out.push({ id: raw.id, file: source, state: raw.state, questions: raw.questions, gold, split, source, weight: raw.weight ?? 1, ...(raw.pair ? { pair: raw.pair } : {}) });
    }
  }
  return out;
}

/** Every text the reader reads for these cases. */
export function readerTexts(cases: readonly TrainCase[]): Set<string> {
  const texts = new Set<string>();
  for (const c of cases) {
    texts.add(renderState(c.state));
    for (const qid of Object.keys(c.gold)) {
      const t = questionTexts(renderQuestion(c.questions[qid]!));
      texts.add(t.instructions);
      for (const l of t.lines) texts.add(l);
    }
  }
  texts.delete('');
  return texts;
}

/**
 * Examples with encodings looked up in the store; states longer than `maxState` tokens are cut.
 * `base` holds the base heads' log-probabilities by case (`source/id`) and question id.
 */
export function buildReaderExamples(
  cases: readonly TrainCase[],
  store: EncodingStore,
  tokenizer: Tokenizer,
  base: ReadonlyMap<string, Record<string, number[]>> | null = null,
  maxState = 512,
): ReaderExample[] {
  const ids = new Map<string, number[]>();
  const rep = (text: string, max = Infinity): ReaderText => {
    const e = store.get(text);
    let tokenIds = ids.get(text);
    if (!tokenIds) {
      tokenIds = text === '' ? [] : tokenizer.encode(flattenWhitespace(text));
      if (text.length < 400) ids.set(text, tokenIds);
    }
    // A cache written by an older tokenizer (EVALMODEL_ENCODER_TAG) may hold other ids for a text
    // with characters outside the vocabulary: its token states are kept, without exact matches.
    const n = Math.min(e.n, max);
    if (tokenIds.length !== e.n) return { tokens: e.tokens.subarray(0, n * 512), n, ids: new Array<number>(n).fill(-1) };
    return { tokens: e.tokens.subarray(0, n * 512), n, ids: tokenIds.slice(0, n) };
  };
  const tokenize = (text: string) => tokenizer.encode(flattenWhitespace(text));
  return cases.map((c) => {
    const items: ReaderItem[] = [];
    const caseBase = base?.get(`${c.source}/${c.id}`);
    const state = rep(renderState(c.state), maxState);
    // The field-pair input as serving computes it (heads/runner.ts), from the same cached state.
    const golds = Object.entries(c.gold);
    const pairs = pairSimilarities(golds.map(([qid]) => c.questions[qid]!), c.state, state.ids, state.tokens, tokenize);
    for (const [qi, [qid, g]] of golds.entries()) {
      const q = c.questions[qid]!;
      const rendered = renderQuestion(q);
      const gold = goldIndex(q, g);
      if (gold < 0 || gold >= rendered.keys.length) continue;
      const t = questionTexts(rendered);
      const b = caseBase?.[qid];
      if (base && (!b || b.length !== rendered.keys.length)) continue;
      const fieldPair = pairs[qi];
      items.push({ type: rendered.type, instructions: rep(t.instructions), lines: t.lines.map((l) => rep(l)), gold, weight: c.weight, ...(b ? { base: b } : {}), ...(typeof fieldPair === 'number' ? { fieldPair } : {}) });
    }
    return { id: `${c.source}/${c.id}`, source: c.source, ...(c.pair ? { pair: c.pair } : {}), state, items };
  });
}

export interface DataOptions {
  /** Sampling weight of the corpus's questions. */
  corpusWeight: number;
  /** Training cases per converted source at most (seeded sample; 0 = all); held-out splits are kept whole. */
  sourceCap: number;
  /** Cases at most, all splits (a quick run for tests; 0 = all). */
  maxCases: number;
  seed: number;
}

/** The corpus plus the converted set (TRAIN_DATA, default .cache/data), capped per source. */
export function loadTrainingCases(o: DataOptions): { cases: TrainCase[]; corpus: number; converted: number; dir: string } {
  const corpus = corpusCases(path.join(dataDir(), 'train'), o.corpusWeight);
  const dir = process.env.TRAIN_DATA ?? path.join(repoRoot(), '.cache', 'data');
  const converted = existsSync(dir) ? convertedCases(dir, new Set()) : [];
  const bySource = new Map<string, TrainCase[]>();
  for (const c of converted) {
    const key = `${c.split}\u0000${c.source}`;
    let list = bySource.get(key);
    if (!list) bySource.set(key, (list = []));
    list.push(c);
  }
  const kept: TrainCase[] = [];
  for (const [key, list] of [...bySource].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (o.sourceCap > 0 && key.startsWith('train\u0000') && list.length > o.sourceCap) {
      // Whole pair groups, so a counterfactual pair is never split by the cap.
      const groups = new Map<string, TrainCase[]>();
      for (const c of list) {
        const g = c.pair ?? c.id;
        if (!groups.has(g)) groups.set(g, []);
        groups.get(g)!.push(c);
      }
      // Ordered by a hash of each group's id, not by file order: a source's sample stays the
      // same when cases of other sources are added to the data (their base answers stay valid).
      const order = [...groups].map(([g, cs]) => ({ cs, h: unitHash(g, o.seed) })).sort((a, b) => a.h - b.h);
      let n = 0;
      for (const { cs: g } of order) {
        if (n >= o.sourceCap) break;
        kept.push(...g);
        n += g.length;
      }
    } else kept.push(...list);
  }
  let cases = [...corpus, ...kept];
  if (o.maxCases > 0) cases = shuffled(cases, rng(o.seed)).slice(0, o.maxCases);
  return { cases, corpus: corpus.length, converted: kept.length, dir };
}
