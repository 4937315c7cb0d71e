/**
 * The accuracy benchmark: runs the engine in-process over case files in the shared data format
 * and reports, per question type and pooled, accuracy (JevBench rule), Brier score, 10-bin ECE,
 * mean probability on gold, latency p50/p95, and consistency (choice flip rate under option
 * permutations, noul symmetry under swapped criteria, score mirroring under reversed levels).
 *
 *   node dist/bench/accuracy/run.js <file-or-folder>... [--model NAME] [--limit N]
 *        [--model-dir DIR] [--manifest FILE]
 *        [--split test|calib|train] [--no-consistency] [--perms 5] [--no-exact] [--json out.json]
 *   node dist/bench/accuracy/run.js --compare a.json b.json [--examples 5]
 *   node dist/bench/accuracy/run.js --compare old-folder/ new-folder/
 *
 * `--model-dir` measures an NLI model folder (transformers.js layout; its id is the default
 * model then), `--manifest` uses another model registry.
 *
 * Without inputs it runs the shared data's jevbench-sample (EVALMODEL_DATA or ../shared/data).
 *
 * `--json` writes the summaries and every scored question's answer (ids, type, gold index,
 * distribution; no texts); `--compare` puts two such results side by side, question by question
 * (see compare.ts). Two folders compare their same-named files, one set each.
 *
 * `--split` keeps only that part of the seeded split of the training corpus (see
 * src/training/data.ts). `--limit N` keeps a seeded sample of N cases (in file order).
 * @module
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createEngine, type Engine, type EngineConfig } from '../../src/index.js';
import { modelDirId } from '../../src/engine/registry-config.js';
import { dataDir, goldIndex, loadCases, rng, shuffled, splitOf, type Case, type SplitName } from '../../src/training/data.js';
import type { Answer, Question, Questions } from '../../src/types.js';
import { percentile, summarise, type Scored, type Summary } from './metrics.js';
import { compareInputs, f3, round4, toJson, type QuestionRecord } from './compare.js';

export type { QuestionRecord };

export interface Consistency {
  choiceFlipRate: number;
  choiceFlipN: number;
  noulSymmetry: number;
  noulSymmetryN: number;
  scoreMirroring: number;
  scoreMirroringN: number;
}

export interface BenchResult {
  label: string;
  model: string;
  inputs: string[];
  cases: number;
  machine: string;
  backend: string;
  date: string;
  byType: Record<string, Summary>;
  pooled: Summary;
  byFile: Record<string, Summary>;
  latencyMs: { p50: number; p95: number; perQuestionMean: number };
  consistency?: Consistency;
  /**
   * Every scored question's answer (ids, type, gold index and the distribution rounded to 4
   * decimals; no state or question text), so that `--compare` can match old and new answers
   * question by question. Absent in results written before it was recorded.
   */
  questions?: QuestionRecord[];
  /** The exact-answer stage's counters over the run (consistency variants included). */
  exact?: { enabled: boolean; answered: number; abstained: number };
}

/** An answer as a distribution over the question's outcomes, in outcome order. */
export function distribution(question: Question, answer: Answer): number[] {
  if (answer.type === 'noul') return [answer.noul, 1 - answer.noul];
  if (answer.type === 'choice' && question.type === 'choice') return Object.keys(question.criteria).map((k) => answer.probabilities[k] ?? 0);
  if (answer.type === 'score' && question.type === 'score') return question.criteria.map((_, i) => answer.probabilities[String(i)] ?? 0);
  throw new Error(`answer of type ${answer.type} for a ${question.type} question`);
}

function expected(p: readonly number[]): number {
  return p.reduce((e, x, i) => e + i * x, 0);
}

function hasCriteria(q: Question): boolean {
  if (q.type !== 'noul' || !q.criteria) return false;
  const c = q.criteria as Record<string, unknown>;
  return (c.true !== null && c.true !== undefined) || (c.false !== null && c.false !== undefined);
}

function permuteChoice(q: Extract<Question, { type: 'choice' }>, random: () => number): Question {
  const keys = shuffled(Object.keys(q.criteria), random);
  const criteria: Record<string, unknown> = {};
  for (const k of keys) Object.defineProperty(criteria, k, { value: q.criteria[k], enumerable: true, writable: true, configurable: true });
  return { ...q, criteria } as Question;
}

/** Runs one set of cases through the engine. */
export async function runBench(engine: Engine, cases: readonly Case[], opts: { model: string; consistency: boolean; perms: number; label: string; inputs: string[] }): Promise<BenchResult> {
  const scored: Scored[] = [];
  const records: QuestionRecord[] = [];
  const latencies: number[] = [];
  let questionsAsked = 0;
  const flips: number[] = [];
  const sym: number[] = [];
  const mirror: number[] = [];
  const random = rng(12345);
  for (const c of cases) {
    const t0 = performance.now();
    const res = await engine.evaluate({ model: opts.model, state: c.state, questions: c.questions as Questions });
    latencies.push(performance.now() - t0);
    questionsAsked += Object.keys(c.questions).length;
    for (const [qid, g] of Object.entries(c.gold)) {
      const q = c.questions[qid]!;
      const gi = goldIndex(q, g);
      if (gi < 0) continue;
      const probs = distribution(q, res.answers[qid]!);
      scored.push({ type: q.type, probs, gold: gi, file: c.file });
      records.push({ file: c.file, case: c.id, q: qid, type: q.type, gold: gi, p: probs.map(round4) });
    }
    if (!opts.consistency) continue;
    // Variants of every question, asked together (answers are independent of each other).
    const variants: Questions = {};
    const checks: (() => void)[] = [];
    let v = 0;
    for (const [qid, q] of Object.entries(c.questions)) {
      const base = distribution(q, res.answers[qid]!);
      if (q.type === 'choice' && Object.keys(q.criteria).length > 1) {
        const top = Object.keys(q.criteria)[base.indexOf(Math.max(...base))]!;
        for (let i = 0; i < opts.perms; i++) {
          const id = `v${v++}`;
          variants[id] = permuteChoice(q, random);
          checks.push(() => {
            const a = answers[id]!;
            flips.push(a.type === 'choice' && a.choice !== top ? 1 : 0);
          });
        }
      } else if (q.type === 'noul' && hasCriteria(q)) {
        const crit = q.criteria as Record<string, unknown>;
        const id = `v${v++}`;
        variants[id] = { ...q, criteria: { true: crit.false ?? null, false: crit.true ?? null } } as Question;
        checks.push(() => {
          const a = answers[id]!;
          if (a.type === 'noul') sym.push(Math.abs(base[0]! + a.noul - 1));
        });
      } else if (q.type === 'score' && q.criteria.length > 1) {
        const id = `v${v++}`;
        variants[id] = { ...q, criteria: [...q.criteria].reverse() } as Question;
        checks.push(() => {
          const a = answers[id]!;
          const n = q.criteria.length;
          mirror.push(Math.abs(expected(base) - (n - 1 - expected(distribution(variants[id]!, a)))));
        });
      }
    }
    let answers: Record<string, Answer> = {};
    if (v > 0) {
      answers = (await engine.evaluate({ model: opts.model, state: c.state, questions: variants })).answers;
      for (const check of checks) check();
    }
  }
  const byType: Record<string, Summary> = {};
  for (const t of ['noul', 'choice', 'score'] as const) byType[t] = summarise(scored.filter((s) => s.type === t));
  const byFile: Record<string, Summary> = {};
  for (const f of [...new Set(scored.map((s) => s.file ?? ''))].sort()) byFile[f] = summarise(scored.filter((s) => s.file === f));
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const stats = engine.stats();
  return {
    label: opts.label,
    model: engine.resolveModel(opts.model),
    inputs: opts.inputs,
    cases: cases.length,
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.version}`,
    backend: stats.backend,
    exact: stats.exact,
    date: new Date().toISOString(),
    byType,
    pooled: summarise(scored),
    byFile,
    latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), perQuestionMean: latencies.reduce((a, b) => a + b, 0) / Math.max(1, questionsAsked) },
    ...(opts.consistency
      ? {
          consistency: {
            choiceFlipRate: mean(flips),
            choiceFlipN: flips.length,
            noulSymmetry: mean(sym),
            noulSymmetryN: sym.length,
            scoreMirroring: mean(mirror),
            scoreMirroringN: mirror.length,
          },
        }
      : {}),
    questions: records,
  };
}

function summaryRows(r: BenchResult): [string, Summary][] {
  return [...Object.entries(r.byType), ['pooled', r.pooled]];
}

export function formatTable(r: BenchResult): string {
  const lines = [
    `${r.label}  model ${r.model}  cases ${r.cases}  backend ${r.backend}  (${r.machine})`,
    'type       n    acc   uniform  brier    ece   goldP  spearman',
  ];
  for (const [name, s] of summaryRows(r)) {
    lines.push(`${name.padEnd(7)} ${String(s.n).padStart(5)} ${f3(s.accuracy)} ${f3(s.uniform)}  ${f3(s.brier)} ${f3(s.ece)} ${f3(s.goldProb)} ${f3(s.spearman)}`);
  }
  lines.push(`latency per request p50 ${r.latencyMs.p50.toFixed(0)} ms, p95 ${r.latencyMs.p95.toFixed(0)} ms; mean per question ${r.latencyMs.perQuestionMean.toFixed(1)} ms`);
  if (r.exact) lines.push(`exact stage ${r.exact.enabled ? 'on' : 'off'}: answered ${r.exact.answered}, left to the model ${r.exact.abstained} (consistency variants included)`);
  const c = r.consistency;
  if (c) {
    lines.push(
      `consistency: choice flip rate ${f3(c.choiceFlipRate)} (n ${c.choiceFlipN}), noul symmetry ${f3(c.noulSymmetry)} (n ${c.noulSymmetryN}), score mirroring ${f3(c.scoreMirroring)} (n ${c.scoreMirroringN})`,
    );
  }
  return lines.join('\n');
}

export const USAGE = `usage: node dist/bench/accuracy/run.js [<cases file or folder>...] [--model NAME] [--limit N]
         [--model-dir DIR] [--manifest FILE] [--split test|calib|train] [--no-consistency] [--perms 5]
         [--no-exact] [--label TEXT] [--json out.json]
       node dist/bench/accuracy/run.js --compare a.json b.json [--examples 5]   (or two folders of them)
Without inputs it runs the shared data's jevbench-sample (EVALMODEL_DATA or ../shared/data).`;

const OPTIONS = {
  help: { type: 'boolean', default: false },
  model: { type: 'string' },
  'model-dir': { type: 'string' },
  manifest: { type: 'string' },
  limit: { type: 'string' },
  split: { type: 'string' },
  'no-consistency': { type: 'boolean', default: false },
  perms: { type: 'string', default: '5' },
  json: { type: 'string' },
  compare: { type: 'boolean', default: false },
  label: { type: 'string' },
  examples: { type: 'string', default: '5' },
  'no-exact': { type: 'boolean', default: false },
} as const;

/** The command line's options and inputs, or what is wrong with it followed by the usage text. */
export function parseCommandLine(args: string[]): ReturnType<typeof parse> | { error: string } {
  try {
    return parse(args);
  } catch (err) {
    // Node's message goes on to suggest `--` for positionals; its first sentence is what is wrong.
    return { error: `${(err as Error).message.split('. ')[0]}.\n${USAGE}` };
  }
}

const parse = (args: string[]) => parseArgs({ args, allowPositionals: true, options: OPTIONS });

async function main(): Promise<void> {
  const parsed = parseCommandLine(process.argv.slice(2));
  if ('error' in parsed) {
    console.error(parsed.error);
    process.exitCode = 2;
    return;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.compare) {
    const [a, b] = positionals;
    if (!a || !b || positionals.length !== 2) throw new Error('--compare needs two JSON result files (or two folders of them)');
    console.log(compareInputs(a, b, Number(values.examples)));
    return;
  }
  if (positionals.length === 0) {
    // Default: the public benchmark sample, when the shared data is there.
    const sample = path.join(dataDir(), 'jevbench-sample');
    if (!existsSync(sample)) {
      console.error(`${USAGE}\n(no shared data at ${dataDir()}; set EVALMODEL_DATA)`);
      process.exitCode = 2;
      return;
    }
    positionals.push(sample);
  }
  let cases = positionals.flatMap((p) => loadCases(p));
  if (values.split) cases = cases.filter((c) => splitOf(c) === (values.split as SplitName));
  if (values.limit) {
    const n = Number(values.limit);
    const keep = new Set(shuffled(cases.map((_, i) => i), rng(0)).slice(0, n));
    cases = cases.filter((_, i) => keep.has(i));
  }
  const modelConfig: EngineConfig = {
    ...(values['model-dir'] ? { modelDir: path.resolve(values['model-dir']) } : {}),
    ...(values.manifest ? { manifest: path.resolve(values.manifest) } : {}),
  };
  const model = values.model ?? (modelConfig.modelDir ? modelDirId(modelConfig.modelDir) : 'evalmodel-latest');
  const engine = await createEngine({ ...modelConfig, defaultModel: model, exact: !values['no-exact'] });
  const label = values.label ?? `${positionals.join(' ')}${values.split ? ` [${values.split}]` : ''}${values.limit ? ` [limit ${values.limit}]` : ''}${values['no-exact'] ? ' [no exact]' : ''}`;
  const result = await runBench(engine, cases, { model, consistency: !values['no-consistency'], perms: Number(values.perms), label, inputs: positionals });
  await engine.close();
  console.log(formatTable(result));
  if (values.json) writeFileSync(values.json, toJson(result));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await main();
}
