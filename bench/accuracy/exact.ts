/**
 * The exact-answer stage alone (no encoder): over case files, how often it fires, by category,
 * and how often its decided outcome is the gold one where it fires.
 *
 *   node dist/bench/accuracy/exact.js [<file-or-folder>...] [--split test|calib|train] [--fit] [--misses N] [--engine] [--json out.json]
 *
 * `--engine` also runs the model (the engine with the stage off) over every case and reports
 * accuracy (JevBench rule) before and after the stage: overall, on the numeric and date yes/no
 * questions (`isNumericOrDate`), and on the questions where the stage fired (the model's own
 * accuracy there against the stage's). An answer "after" is the stage's where it fired, else the
 * model's: exactly what the engine with the stage on returns (test/exact-engine.test.ts).
 *
 * Without inputs it reads the shared data's jevbench-sample. `--fit` prints the smoothed
 * precision pooled over question types, the value of src/exact/calibration.ts (run it on the calib
 * split only). `--misses N` prints up to N questions where the stage fired and disagreed with
 * the gold, to read (never to fit rules to a measure-only set).
 * @module
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createEngine, type Engine } from '../../src/index.js';
import { summarise, type Scored } from './metrics.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { exactAnswer, type Query } from '../../src/exact/index.js';
import type { Value } from '../../src/exact/fields.js';
import { dataDir, goldIndex, loadCases, splitOf, type SplitName } from '../../src/training/data.js';
import type { Answer, Question, Questions, State } from '../../src/types.js';
import { distribution } from './run.js';

/** A coarse name for what the stage computed. */
export function category(query: Query | undefined, question: Question): string {
  if (!query) return 'none';
  const side = (k: string) => k;
  switch (query.kind) {
    case 'compare': {
      const kinds = [query.left.kind, query.right.kind];
      if (kinds.includes('date')) return 'date';
      if (kinds.includes('agg')) return 'list';
      if (kinds.includes('counted')) return 'counted in text';
      if (kinds.includes('text')) return 'equality';
      if (kinds.includes('label')) return 'named number';
      return kinds.every((k) => k === 'ref') ? 'two fields' : 'number';
    }
    case 'between':
      return 'number';
    case 'within':
    case 'calendar':
      return 'date';
    case 'is':
      return 'equality';
    case 'quant':
      return 'list';
    case 'flag':
      return 'named boolean';
    case 'value':
      return `${question.type} ${side(query.of.kind === 'agg' || query.of.kind === 'share' ? 'list' : 'value')}`;
  }
}

const NUMBER_WORD = /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|million|dozen|half)\b/i;
const COMPARISON = /\b(?:more|less|fewer|least|most|above|below|under|over|exceed\w*|before|after|within|between|earlier|later|higher|lower|greater|larger|smaller|longer|shorter|equal|same)\b|[<>=]/i;
const DATE = /\b\d{4}-\d{2}-\d{2}\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekday)\b/i;

/**
 * The numeric and date yes/no questions: a noul question whose text holds a number (digits or
 * a number word) and a comparison word, or a date, a month or a weekday. A wording rule, not
 * a judgement; the same rule for every data set.
 */
export function isNumericOrDate(q: Question): boolean {
  if (q.type !== 'noul') return false;
  const text = typeof q.instructions === 'string' ? q.instructions : JSON.stringify(q.instructions ?? '');
  return ((/\d/.test(text) || NUMBER_WORD.test(text)) && COMPARISON.test(text)) || DATE.test(text);
}

interface Tally {
  fired: number;
  correct: number;
}

export interface ExactBench {
  inputs: string[];
  split?: string;
  questions: Record<string, number>;
  byCategory: Record<string, Tally>;
  byType: Record<string, Tally>;
  /** With `--engine`: accuracy before (model only) and after (stage where it fired), by subset. */
  accuracy?: Record<string, { n: number; before: number; after: number }>;
}

/** A short rendering of a bound value. */
function show(v: Value): string {
  switch (v.kind) {
    case 'number':
      return `${v.q.value} ${v.q.dim}`;
    case 'date':
      return v.d.text;
    case 'boolean':
      return String(v.b);
    case 'string':
      return JSON.stringify(v.s);
    case 'list':
      return `[${v.items.length} items]`;
    default:
      return v.kind;
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { split: { type: 'string' }, fit: { type: 'boolean', default: false }, misses: { type: 'string', default: '0' }, json: { type: 'string' }, engine: { type: 'boolean', default: false } },
  });
  if (positionals.length === 0) {
    const sample = path.join(dataDir(), 'jevbench-sample');
    if (!existsSync(sample)) {
      console.error(`no shared data at ${dataDir()}; set EVALMODEL_DATA or name case files`);
      process.exitCode = 2;
      return;
    }
    positionals.push(sample);
  }
  let cases = positionals.flatMap((p) => loadCases(p));
  if (values.split) cases = cases.filter((c) => splitOf(c) === (values.split as SplitName));
  const result: ExactBench = { inputs: positionals, ...(values.split ? { split: values.split } : {}), questions: {}, byCategory: {}, byType: {} };
  const misses: string[] = [];
  const bump = (table: Record<string, Tally>, key: string, ok: boolean) => {
    const t = (table[key] ??= { fired: 0, correct: 0 });
    t.fired++;
    if (ok) t.correct++;
  };
  const engine: Engine | null = values.engine ? await createEngine({ exact: false }) : null;
  const subsets: Record<string, { before: Scored[]; after: Scored[] }> = {};
  const add = (name: string, q: Question, before: Answer, after: Answer, gold: number) => {
    const s = (subsets[name] ??= { before: [], after: [] });
    s.before.push({ type: q.type, probs: distribution(q, before), gold });
    s.after.push({ type: q.type, probs: distribution(q, after), gold });
  };
  for (const c of cases) {
    const model = engine ? (await engine.evaluate({ model: 'evalmodel-latest', state: c.state, questions: c.questions as Questions })).answers : null;
    for (const [qid, gold] of Object.entries(c.gold)) {
      const q = c.questions[qid]!;
      const gi = goldIndex(q, gold);
      if (gi < 0) continue;
      if (model) {
        const before = model[qid]!;
        const after = exactAnswer(c.state as State, q).answer ?? before;
        add('all questions', q, before, after, gi);
        add(`all ${q.type}`, q, before, after, gi);
        if (isNumericOrDate(q)) add('numeric/date noul', q, before, after, gi);
        if (after !== before) add('where it fired', q, before, after, gi);
      }
      result.questions[q.type] = (result.questions[q.type] ?? 0) + 1;
      const out = exactAnswer(c.state as State, q);
      if (!out.answer) continue;
      const probs = distribution(q, out.answer);
      const top = probs.indexOf(Math.max(...probs));
      const ok = top === gi;
      bump(result.byCategory, category(out.explanation.query, q), ok);
      bump(result.byType, q.type, ok);
      if (!ok && misses.length < Number(values.misses)) {
        misses.push(`${c.file ?? ''} ${c.id} ${qid}: ${JSON.stringify(out.explanation.text)} gold ${JSON.stringify(gold)}; bound ${out.explanation.bound.map((b) => `${b.from} = ${show(b.value)}`).join(', ')}`);
      }
    }
  }
  const f3 = (x: number) => (Number.isNaN(x) ? '  -  ' : x.toFixed(3));
  console.log(`exact stage on ${positionals.join(' ')}${values.split ? ` [${values.split}]` : ''}: ${cases.length} cases, questions ${JSON.stringify(result.questions)}`);
  console.log('category            fired  correct  precision');
  for (const [name, t] of [...Object.entries(result.byCategory).sort(), ...Object.entries(result.byType).map(([k, v]) => [`all ${k}`, v] as [string, Tally])]) {
    console.log(`${name.padEnd(18)} ${String(t.fired).padStart(6)} ${String(t.correct).padStart(8)}  ${f3(t.correct / t.fired)}`);
  }
  if (values.fit) {
    const all = Object.values(result.byType).reduce((s, t) => ({ fired: s.fired + t.fired, correct: s.correct + t.correct }), { fired: 0, correct: 0 });
    console.log(`fitted EXACT_PROBABILITY (pooled, add-one): ${((all.correct + 1) / (all.fired + 2)).toFixed(3)} from ${all.correct}/${all.fired}`);
  }
  if (engine) {
    await engine.close();
    result.accuracy = {};
    console.log('\naccuracy (JevBench rule)   n   model only  with stage');
    for (const [name, s] of Object.entries(subsets)) {
      const [b, a] = [summarise(s.before).accuracy, summarise(s.after).accuracy];
      result.accuracy[name] = { n: s.before.length, before: b, after: a };
      console.log(`${name.padEnd(22)} ${String(s.before.length).padStart(5)}   ${f3(b)}       ${f3(a)}`);
    }
  }
  for (const m of misses) console.log(`miss: ${m}`);
  if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2) + '\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await main();
}
