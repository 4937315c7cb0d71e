/**
 * Plain questions: obvious questions a child gets right (test/fixtures/plain-questions.json,
 * written for this project), asked of any model; prints each question's answer, whether it is
 * right, and the total. test/plain-questions.test.ts runs the same code with the default model.
 *
 *   node dist/bench/accuracy/plain.js [--model NAME] [--model-dir DIR] [--manifest FILE]
 *        [--fixture FILE] [--failures]
 *
 * Right means: noul on the expected side of 0.5 (exactly 0.5 is wrong either way); choice and
 * score, the single top option (or level) is the expected one, or one of the expected ones
 * where the fixture accepts several (e.g. "not calm" on calm/annoyed/furious).
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine, type Engine, type EngineConfig } from '../../src/index.js';
import { modelDirId } from '../../src/engine/registry-config.js';
import { repoRoot } from '../../src/training/data.js';
import type { Answer, Question, Questions, State } from '../../src/types.js';

/** Expected answer: noul yes/no; choice option name(s); score level(s). */
export type Expected = boolean | string | string[] | number | number[];

export interface PlainQuestion {
  id: string;
  /** Where the example comes from (issue 15, README, quickstart, --help) or what it covers. */
  source: string;
  state: State;
  question: Question;
  expect: Expected;
}

export interface PlainResult {
  item: PlainQuestion;
  right: boolean;
  /** The answer in short: p(yes), or the top option / level with its probability. */
  shown: string;
}

export const FIXTURE = 'test/fixtures/plain-questions.json';

/** Reads the fixture and checks every item's expected answer fits its question. */
export function loadPlainQuestions(file = path.join(repoRoot(), FIXTURE)): PlainQuestion[] {
  const items = (JSON.parse(readFileSync(file, 'utf8')) as { questions: PlainQuestion[] }).questions;
  const problems = items.flatMap(fixtureProblems);
  const ids = new Set<string>();
  for (const it of items) {
    if (ids.has(it.id)) problems.push(`${it.id}: duplicate id`);
    ids.add(it.id);
  }
  if (problems.length) throw new Error(`${file}:\n${problems.join('\n')}`);
  return items;
}

/** Why an item is malformed (empty when it is fine). */
export function fixtureProblems(it: PlainQuestion): string[] {
  const q = it.question;
  const accepted = Array.isArray(it.expect) ? it.expect : [it.expect];
  if (accepted.length === 0) return [`${it.id}: no expected answer`];
  switch (q.type) {
    case 'noul':
      return typeof it.expect === 'boolean' ? [] : [`${it.id}: a noul question expects true or false`];
    case 'choice':
      return accepted.every((a) => typeof a === 'string' && Object.hasOwn(q.criteria, a)) ? [] : [`${it.id}: expected option not among ${Object.keys(q.criteria).join(', ')}`];
    case 'score':
      return accepted.every((a) => Number.isInteger(a) && (a as number) >= 0 && (a as number) < q.criteria.length) ? [] : [`${it.id}: expected level outside 0..${q.criteria.length - 1}`];
    default:
      return [`${it.id}: unknown question type`];
  }
}

/** The single top key of a distribution, or null on a tie at the top. */
function top(probabilities: Record<string, number>): string | null {
  const entries = Object.entries(probabilities);
  const max = Math.max(...entries.map(([, p]) => p));
  const winners = entries.filter(([, p]) => p >= max - 1e-9);
  return winners.length === 1 ? winners[0]![0] : null;
}

/** Scores one answer against its item. */
export function judge(item: PlainQuestion, answer: Answer): PlainResult {
  if (answer.type === 'noul') {
    const right = item.expect === true ? answer.noul > 0.5 : answer.noul < 0.5;
    return { item, right, shown: `p(yes) ${answer.noul.toFixed(2)}` };
  }
  const accepted = (Array.isArray(item.expect) ? item.expect : [item.expect]).map(String);
  const t = top(answer.probabilities);
  const label = answer.type === 'score' && t !== null ? `${t} (${String(answer.legend[t])})` : String(t ?? 'tie');
  return { item, right: t !== null && accepted.includes(t), shown: `${label} ${t === null ? '' : answer.probabilities[t]!.toFixed(2)}`.trim() };
}

/** Asks every item, one request per distinct state (its questions together). */
export async function answerPlainQuestions(engine: Engine, items: readonly PlainQuestion[], model = 'evalmodel-latest'): Promise<{ results: PlainResult[]; requests: number }> {
  const byState = new Map<string, PlainQuestion[]>();
  for (const it of items) {
    const k = JSON.stringify(it.state);
    byState.set(k, [...(byState.get(k) ?? []), it]);
  }
  const results = new Map<string, PlainResult>();
  for (const group of byState.values()) {
    const questions: Questions = Object.fromEntries(group.map((it) => [it.id, it.question]));
    const res = await engine.evaluate({ model, state: group[0]!.state, questions });
    for (const it of group) results.set(it.id, judge(it, res.answers[it.id]!));
  }
  return { results: items.map((it) => results.get(it.id)!), requests: byState.size };
}

const expectedText = (e: Expected): string => (Array.isArray(e) ? e.join('|') : String(e));

function stateText(s: State): string {
  const t = typeof s === 'string' ? s : JSON.stringify(s);
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

function questionText(q: Question): string {
  const i = q.instructions;
  return typeof i === 'string' ? i : JSON.stringify(i ?? null);
}

/** One line per question (or per failure), then the total. */
export function formatPlain(results: readonly PlainResult[], opts: { failuresOnly?: boolean } = {}): string {
  const lines: string[] = [];
  for (const r of results) {
    if (opts.failuresOnly && r.right) continue;
    lines.push(`${r.right ? 'ok  ' : 'FAIL'} ${r.item.id.padEnd(26)} ${r.item.question.type.padEnd(6)} expect ${expectedText(r.item.expect).padEnd(12)} got ${r.shown.padEnd(22)} | ${stateText(r.item.state)} | ${questionText(r.item.question)}`);
  }
  const right = results.filter((r) => r.right).length;
  const byType = (['noul', 'choice', 'score'] as const)
    .map((t) => {
      const of = results.filter((r) => r.item.question.type === t);
      return `${t} ${of.filter((r) => r.right).length}/${of.length}`;
    })
    .join(', ');
  lines.push(`plain questions right: ${right}/${results.length} (${((100 * right) / Math.max(1, results.length)).toFixed(1)}%; ${byType})`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      'model-dir': { type: 'string' },
      manifest: { type: 'string' },
      fixture: { type: 'string' },
      failures: { type: 'boolean', default: false },
    },
  });
  const config: EngineConfig = {
    ...(values['model-dir'] ? { modelDir: path.resolve(values['model-dir']) } : {}),
    ...(values.manifest ? { manifest: path.resolve(values.manifest) } : {}),
  };
  const model = values.model ?? (config.modelDir ? modelDirId(config.modelDir) : 'evalmodel-latest');
  const items = loadPlainQuestions(values.fixture ? path.resolve(values.fixture) : undefined);
  const engine = await createEngine({ ...config, defaultModel: model });
  const { results, requests } = await answerPlainQuestions(engine, items, model);
  console.log(`model ${engine.resolveModel(model)}; ${items.length} questions in ${requests} requests`);
  await engine.close();
  console.log(formatPlain(results, { failuresOnly: values.failures }));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await main();
}
