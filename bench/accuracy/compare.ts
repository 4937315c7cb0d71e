/**
 * Old against new: `run.js --compare a.json b.json` (or two folders of such files, matched by
 * file name, one block per set). Prints the summary rows of both results side by side, then
 * matches their per-question answers by file, case id and question id and counts the questions
 * both got right, only A, only B, and neither (right = the gold is the only top option, the
 * JevBench rule without its tie credit), with an exact two-sided sign test on the two
 * "only" counts, and lists the questions whose gold probability moved most where the two disagree.
 *
 * Results store answers without any state or question text (ids only), so they can be kept in
 * the repository for sets whose texts may not be; look a question up by its ids in the set.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { itemScore } from './metrics.js';
import type { BenchResult } from './run.js';

/** One scored question's answer, as stored in a result's JSON. */
export interface QuestionRecord {
  /** The case file's base name. */
  file: string;
  case: string;
  /** The question's id within its case. */
  q: string;
  type: 'noul' | 'choice' | 'score';
  /** Index of the gold outcome (noul: 0 = true, 1 = false; choice: option order; score: level). */
  gold: number;
  /** The answer's distribution over the outcomes, in outcome order, rounded to 4 decimals. */
  p: number[];
}

export const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * The result as JSON: the summaries indented, the per-question answers one record a line
 * (about 100 bytes each instead of one line per number).
 */
export function toJson(result: BenchResult): string {
  const { questions, ...rest } = result;
  const head = JSON.stringify(rest, null, 2);
  if (!questions) return head + '\n';
  const body = questions.map((q) => '    ' + JSON.stringify(q)).join(',\n');
  return `${head.slice(0, -2)},\n  "questions": [\n${body}\n  ]\n}\n`;
}

export const f3 = (x: number | null | undefined): string => (x === undefined || x === null || Number.isNaN(x) ? '   -  ' : x.toFixed(3).padStart(6));

const key = (r: QuestionRecord): string => `${r.file}\t${r.case}\t${r.q}`;

/** Right under the JevBench rule with no tie credit: the gold is the single top option. */
export function isRight(r: QuestionRecord): boolean {
  return itemScore(r.p, r.gold) === 1;
}

/** Exact two-sided sign test: P(a split at least as uneven as x : y under p = 1/2). */
export function signTest(x: number, y: number): number {
  const n = x + y;
  if (n === 0) return 1;
  const k = Math.min(x, y);
  // log C(n, i) - n log 2, summed over the tail i <= k, in log space (n may be thousands).
  let logC = 0;
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logC - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}

export interface PairCounts {
  n: number;
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
}

export interface Matched {
  a: QuestionRecord;
  b: QuestionRecord;
}

/** Pairs the two results' questions by file, case and question id. */
export function matchQuestions(a: readonly QuestionRecord[], b: readonly QuestionRecord[]): { pairs: Matched[]; onlyInA: number; onlyInB: number; goldDiffers: number } {
  const byKey = new Map(b.map((r) => [key(r), r]));
  const pairs: Matched[] = [];
  let goldDiffers = 0;
  for (const r of a) {
    const other = byKey.get(key(r));
    if (!other) continue;
    byKey.delete(key(r));
    // The same ids with another gold or outcome count mean the sets changed: not comparable.
    if (other.gold !== r.gold || other.type !== r.type || other.p.length !== r.p.length) goldDiffers++;
    else pairs.push({ a: r, b: other });
  }
  return { pairs, onlyInA: a.length - pairs.length - goldDiffers, onlyInB: byKey.size, goldDiffers };
}

export function countPairs(pairs: readonly Matched[]): PairCounts {
  const c: PairCounts = { n: pairs.length, both: 0, onlyA: 0, onlyB: 0, neither: 0 };
  for (const { a, b } of pairs) {
    const ra = isRight(a);
    const rb = isRight(b);
    if (ra && rb) c.both++;
    else if (ra) c.onlyA++;
    else if (rb) c.onlyB++;
    else c.neither++;
  }
  return c;
}

const dist = (p: readonly number[]): string => `[${p.map((x) => x.toFixed(2)).join(' ')}]`;

function summaryBlock(a: BenchResult, b: BenchResult, lines: string[]): void {
  // Counts as integers, milliseconds to one decimal, the rest to three.
  const fmt = (metric: string, x: number | null | undefined) =>
    x === undefined || x === null || Number.isNaN(x) ? '   -  ' : metric === 'n' ? String(x).padStart(6) : metric.endsWith('ms') ? x.toFixed(1).padStart(6) : f3(x);
  const row = (name: string, metric: string, x: number | null | undefined, y: number | null | undefined) =>
    lines.push(`${name.padEnd(8)} ${metric.padEnd(9)} ${fmt(metric, x)}  ${fmt(metric, y)}  ${x === undefined || y === undefined || x === null || y === null ? '' : fmt(metric, y - x)}`);
  lines.push('type     metric      A       B      B-A');
  const names = [...new Set([...Object.keys(a.byType), ...Object.keys(b.byType)]), 'pooled'];
  for (const name of names) {
    const x = name === 'pooled' ? a.pooled : a.byType[name];
    const y = name === 'pooled' ? b.pooled : b.byType[name];
    if (!x?.n && !y?.n) continue;
    for (const m of ['n', 'accuracy', 'brier', 'ece', 'goldProb', 'spearman'] as const) {
      if (x?.[m] === undefined && y?.[m] === undefined) continue;
      row(name, m, x?.[m], y?.[m]);
    }
  }
  row('latency', 'p50 ms', a.latencyMs.p50, b.latencyMs.p50);
  row('latency', 'p95 ms', a.latencyMs.p95, b.latencyMs.p95);
  if (a.consistency || b.consistency) {
    row('consist', 'flip', a.consistency?.choiceFlipRate, b.consistency?.choiceFlipRate);
    row('consist', 'noulsym', a.consistency?.noulSymmetry, b.consistency?.noulSymmetry);
    row('consist', 'mirror', a.consistency?.scoreMirroring, b.consistency?.scoreMirroring);
  }
}

function perQuestionBlock(a: BenchResult, b: BenchResult, examples: number, lines: string[]): void {
  if (!a.questions || !b.questions) {
    lines.push(`per question: not comparable (${!a.questions ? 'A' : 'B'} was written without per-question answers)`);
    return;
  }
  const m = matchQuestions(a.questions, b.questions);
  lines.push(
    `per question (matched by file, case and question id: ${m.pairs.length}; only in A ${m.onlyInA}, only in B ${m.onlyInB}` +
      `${m.goldDiffers ? `, same ids but another gold or option count ${m.goldDiffers}, left out` : ''}); right = gold is the only top option`,
  );
  lines.push('type         n   both  onlyA  onlyB  neither    B-A   sign p');
  const types = ['noul', 'choice', 'score'] as const;
  for (const t of [...types, 'all'] as const) {
    const c = countPairs(t === 'all' ? m.pairs : m.pairs.filter((p) => p.a.type === t));
    if (c.n === 0) continue;
    const delta = (c.onlyB - c.onlyA) / c.n;
    lines.push(
      `${t.padEnd(7)} ${String(c.n).padStart(6)} ${String(c.both).padStart(6)} ${String(c.onlyA).padStart(6)} ${String(c.onlyB).padStart(6)} ${String(c.neither).padStart(8)} ${f3(delta)}  ${signTest(c.onlyA, c.onlyB).toPrecision(2).padStart(7)}`,
    );
  }
  if (examples <= 0) return;
  // The disagreements where the gold's probability moved furthest, each way.
  const moved = (p: Matched) => (p.b.p[p.b.gold] ?? 0) - (p.a.p[p.a.gold] ?? 0);
  const show = (title: string, list: Matched[]) => {
    if (list.length === 0) return;
    lines.push(title);
    for (const p of list.slice(0, examples)) {
      lines.push(`  ${p.a.file} ${p.a.case} ${p.a.q}  ${p.a.type} gold ${p.a.gold}  A ${dist(p.a.p)} -> B ${dist(p.b.p)}  (gold ${moved(p) >= 0 ? '+' : ''}${moved(p).toFixed(2)})`);
    }
  };
  const onlyA = m.pairs.filter((p) => isRight(p.a) && !isRight(p.b)).sort((x, y) => moved(x) - moved(y));
  const onlyB = m.pairs.filter((p) => !isRight(p.a) && isRight(p.b)).sort((x, y) => moved(y) - moved(x));
  show(`biggest disagreements, only A right (${onlyA.length}):`, onlyA);
  show(`biggest disagreements, only B right (${onlyB.length}):`, onlyB);
}

/** Old (A) and new (B) side by side: summary rows, per-question counts, biggest disagreements. */
export function formatCompare(a: BenchResult, b: BenchResult, examples = 5): string {
  const lines = [`A: ${a.label} (${a.model}, ${a.date})`, `B: ${b.label} (${b.model}, ${b.date})`];
  summaryBlock(a, b, lines);
  perQuestionBlock(a, b, examples, lines);
  return lines.join('\n');
}

const readResult = (file: string): BenchResult => JSON.parse(readFileSync(file, 'utf8')) as BenchResult;

/** Two result files, or two folders whose same-named `*.json` files are compared set by set. */
export function compareInputs(a: string, b: string, examples = 5): string {
  for (const p of [a, b]) if (!existsSync(p)) throw new Error(`--compare: ${p} does not exist`);
  const dirA = statSync(a).isDirectory();
  if (dirA !== statSync(b).isDirectory()) throw new Error('--compare needs two files or two folders');
  if (!dirA) return formatCompare(readResult(a), readResult(b), examples);
  const names = (d: string) => readdirSync(d).filter((f) => f.endsWith('.json')).sort();
  const inB = new Set(names(b));
  const blocks: string[] = [];
  for (const name of names(a)) {
    if (!inB.has(name)) continue;
    blocks.push(`=== ${name.replace(/\.json$/, '')} ===\n${formatCompare(readResult(path.join(a, name)), readResult(path.join(b, name)), examples)}`);
  }
  const unmatched = [...names(a).filter((n) => !inB.has(n)).map((n) => `${n} only in A`), ...names(b).filter((n) => !names(a).includes(n)).map((n) => `${n} only in B`)];
  if (unmatched.length) blocks.push(`not compared: ${unmatched.join(', ')}`);
  if (blocks.length === 0) blocks.push('no result files with the same name in both folders');
  return blocks.join('\n\n');
}
