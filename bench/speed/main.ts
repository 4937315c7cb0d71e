/**
 * `npm run bench:speed`: latency and throughput of the engine on the embedded default model.
 *
 *   node dist/bench/speed/main.js [--quick] [--json FILE] [--only GROUP,...] [--workers N] [--model ID] [--backend NAME]
 *        [--model-dir DIR] [--manifest FILE]
 *
 * `--model-dir` measures an NLI model folder (transformers.js layout, see docs/choosing-a-model.md)
 * instead of the default model; `--manifest` uses another model registry.
 *
 * Groups: state, questions, options, cache, jevbench, jevbench-pool (not in the default run:
 * one request at a time through a pool, whose workers split a state's windows), throughput.
 *   node dist/bench/speed/main.js --compare BEFORE.json AFTER.json
 *
 * Every case warms up first and reports the median (and p90, min) of several requests; a
 * "fresh" input is one no cache has seen (new seed), a "rubric" input reuses questions the
 * engine has answered before (the common case: one rubric over many documents). FLOPs come
 * from the encoder's own counters; the peak is the best rate measured for the backend's
 * matrix product on one core (a large fused matMul; onnxruntime's MatMul when the encoder runs
 * there), printed with the table. Backends side by side: backends.ts.
 * @module
 */
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as api from '../../src/index.js';
import { modelDirId } from '../../src/engine/registry-config.js';
import { readEncoderWork } from '../../src/encoder/index.js';
import type { Engine, EngineConfig, Questions, State } from '../../src/index.js';
import {
  choiceQuestion,
  loadCases,
  noulQuestions,
  questionsWithNonce,
  scoreQuestion,
  stateOfTokens,
  withNonce,
  type BenchCase,
} from './inputs.js';
import { jevbenchGroup, jevbenchTargets, warmRubrics } from './jevbench.js';
import { cpuNow, machineBusyMs, measureNativePeak, measurePeak } from './machine.js';
import {
  compareReports,
  formatReport,
  median,
  quantile,
  type BenchReport,
  type CaseResult,
  type TargetResult,
  type ThroughputResult,
} from './report.js';

interface Request {
  state: State;
  questions: Questions;
}

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    only: { type: 'string' },
    workers: { type: 'string', default: '2' },
    model: { type: 'string' },
    'model-dir': { type: 'string' },
    manifest: { type: 'string' },
    backend: { type: 'string' },
    compare: { type: 'boolean', default: false },
  },
  allowPositionals: true,
  strict: true,
});

const positionals = process.argv.slice(2).filter((a) => !a.startsWith('--') && a.endsWith('.json'));
if (args.compare) {
  if (positionals.length !== 2) throw new Error('--compare needs two JSON files: before.json after.json');
  console.log(compareReports(positionals[0]!, positionals[1]!));
  process.exit(0);
}

const quick = args.quick ?? false;
/** The registry options: another manifest, an NLI model folder. */
const modelConfig: EngineConfig = {
  ...(args['model-dir'] ? { modelDir: path.resolve(args['model-dir']) } : {}),
  ...(args.manifest ? { manifest: path.resolve(args.manifest) } : {}),
};
/** Model of every request (default: the model folder's, else the engine's default model). */
const model = args.model ?? (modelConfig.modelDir ? modelDirId(modelConfig.modelDir) : undefined);
/** Every engine and pool here: the registry options, the measured model as the default. */
const engineConfig: EngineConfig = { ...modelConfig, ...(model ? { defaultModel: model } : {}), ...(args.backend ? { backend: args.backend as api.BackendName } : {}) };
const only = args.only ? new Set(args.only.split(',')) : null;
// jevbench-pool only when asked for: its figures need both cores free of other work.
const wanted = (group: string) => (only ? only.has(group) : group !== 'jevbench-pool');
const scale = (n: number) => (quick ? Math.max(3, Math.ceil(n / 3)) : n);

type PoolFactory = (config: EngineConfig & { workers?: number }) => Promise<Engine>;
const createEnginePool = (api as unknown as { createEnginePool?: PoolFactory }).createEnginePool;

let seedCounter = 1000;
const fresh = () => seedCounter++;

interface Run {
  ms: number;
  cpuMs: number;
  flops: number;
  tokens: number;
  inputTokens: number;
}

async function timed(engine: Engine, req: Request): Promise<Run> {
  const before = readEncoderWork();
  const cpu = cpuNow();
  const start = performance.now();
  const res = await engine.evaluate(req.state, req.questions, model);
  const ms = performance.now() - start;
  const cpuMs = cpuNow() - cpu;
  const after = readEncoderWork();
  return { ms, cpuMs, flops: after.flops - before.flops, tokens: after.tokens - before.tokens, inputTokens: res.usage.input_tokens };
}

/** Runs `make(i)` requests one after another: `warmup` unmeasured, then `iterations` measured. */
async function measureCase(
  engine: Engine,
  id: string,
  group: string,
  label: string,
  iterations: number,
  make: (i: number) => Request,
  warmup = 2,
  notes?: string,
): Promise<CaseResult> {
  for (let i = 0; i < warmup; i++) {
    const req = make(-1 - i);
    await engine.evaluate(req.state, req.questions, model);
  }
  const runs = [];
  for (let i = 0; i < iterations; i++) runs.push(await timed(engine, make(i)));
  return summarise(id, group, label, runs, notes);
}

function summarise(
  id: string,
  group: string,
  label: string,
  runs: Run[],
  notes?: string,
): CaseResult {
  const times = runs.map((r) => r.ms).sort((a, b) => a - b);
  const med = quantile(times, 0.5);
  const flops = median(runs.map((r) => r.flops));
  const result: CaseResult = {
    id,
    group,
    label,
    iterations: runs.length,
    medianMs: med,
    p90Ms: quantile(times, 0.9),
    minMs: times[0]!,
    cpuMs: median(runs.map((r) => r.cpuMs)),
    inputTokens: Math.round(median(runs.map((r) => r.inputTokens))),
    encodedTokens: Math.round(median(runs.map((r) => r.tokens))),
    flops,
    gflops: flops / (med * 1e6),
  };
  if (notes) result.notes = notes;
  console.error(`  ${label.padEnd(44)} median ${med.toFixed(2)} ms, cpu ${(result.cpuMs ?? 0).toFixed(2)} ms  (${(flops / 1e9).toFixed(3)} GFLOP)`);
  return result;
}

async function throughput(engine: Engine, id: string, label: string, requests: Request[]): Promise<ThroughputResult> {
  // A 1 ms ticker: the gaps between its ticks are how long the event loop could not run.
  const gaps: number[] = [];
  let lastTick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    gaps.push(now - lastTick);
    lastTick = now;
  }, 1);
  const machineBefore = machineBusyMs();
  const cpuBefore = cpuNow();
  const start = performance.now();
  const latencies = await Promise.all(
    requests.map(async (r) => {
      const s = performance.now();
      await engine.evaluate(r.state, r.questions, model);
      return performance.now() - s;
    }),
  );
  const totalMs = performance.now() - start;
  const ownCores = (cpuNow() - cpuBefore) / totalMs;
  const otherCores = Math.max(0, (machineBusyMs() - machineBefore) / totalMs - ownCores);
  clearInterval(ticker);
  gaps.push(performance.now() - lastTick);
  gaps.sort((x, y) => x - y);
  const result: ThroughputResult = {
    id,
    label,
    requests: requests.length,
    concurrency: requests.length,
    totalMs,
    requestsPerSecond: (requests.length * 1000) / totalMs,
    p50Ms: median(latencies),
    loopDelayMaxMs: gaps[gaps.length - 1]!,
    loopDelayP99Ms: quantile(gaps, 0.99),
    ownCores,
    otherCores,
  };
  console.error(
    `  ${label.padEnd(44)} ${result.requestsPerSecond.toFixed(2)} req/s, event loop max stall ${result.loopDelayMaxMs.toFixed(1)} ms, ` +
      `cores used ${ownCores.toFixed(2)} (other processes ${otherCores.toFixed(2)})`,
  );
  return result;
}

function pickCase(cases: BenchCase[]): BenchCase | undefined {
  // The jevbench-like request of the issue: about 250 words and 9 questions.
  const words = (c: BenchCase) => (typeof c.state === 'string' ? c.state.split(/\s+/).length : 0);
  return [...cases].sort(
    (x, y) =>
      Math.abs(words(x) - 250) / 25 + Math.abs(Object.keys(x.questions).length - 9) -
      (Math.abs(words(y) - 250) / 25 + Math.abs(Object.keys(y.questions).length - 9)),
  )[0];
}

let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.resourceUsage().maxRSS / 1024));

async function main(): Promise<void> {
  const engine = await api.createEngine(engineConfig);
  const count = (text: string) => engine.countTokens(text);
  const backend = engine.stats().backend;
  console.error(`backend ${backend}; measuring peak kernel rate...`);
  const peak = (backend === 'onnxruntime-node' ? await measureNativePeak() : null) ?? measurePeak();
  const results: CaseResult[] = [];
  const tput: ThroughputResult[] = [];
  const targets: TargetResult[] = [];
  const find = (id: string) => results.find((r) => r.id === id);

  if (wanted('state')) {
    console.error('state length (fresh state, one cached question):');
    const question = noulQuestions(1, 1);
    const iters: Record<number, number> = { 16: 30, 64: 30, 256: 15, 1024: 7, 4096: 5 };
    for (const n of [16, 64, 256, 1024, 4096]) {
      results.push(
        await measureCase(engine, `state-${n}`, 'state', `${n} tokens`, scale(iters[n]!), () => ({
          state: stateOfTokens(n, fresh(), count),
          questions: question,
        })),
      );
    }
    sampleRss();
  }

  if (wanted('questions')) {
    console.error('questions on one 256-token state (fresh state):');
    for (const mode of ['rubric', 'fresh'] as const) {
      for (const q of [1, 8, 64]) {
        const fixed = noulQuestions(q, 2);
        results.push(
          await measureCase(engine, `questions-${q}-${mode}`, 'questions', `${q} noul, ${mode === 'rubric' ? 'known rubric' : 'new questions'}`, scale(q === 64 && mode === 'fresh' ? 6 : 12), () => ({
            state: stateOfTokens(256, fresh(), count),
            questions: mode === 'rubric' ? fixed : noulQuestions(q, fresh()),
          })),
        );
      }
    }
    for (const mode of ['rubric', 'fresh']) {
      const one = find(`questions-1-${mode}`);
      const many = find(`questions-64-${mode}`);
      if (one && many) {
        const ratio = many.medianMs / one.medianMs;
        targets.push({ target: `64 questions <= 3x one (256-token state, ${mode === 'rubric' ? 'known rubric' : 'new questions'})`, measured: `${ratio.toFixed(2)}x`, met: ratio <= 3 });
      }
    }
    sampleRss();
  }

  if (wanted('options')) {
    console.error('choice options and score levels (fresh 64-token state):');
    for (const mode of ['rubric', 'fresh'] as const) {
      for (const k of [2, 16, 255]) {
        const fixed = choiceQuestion(k, 3);
        results.push(
          await measureCase(engine, `choice-${k}-${mode}`, 'options', `choice ${k} options, ${mode === 'rubric' ? 'known' : 'new'}`, scale(k === 255 && mode === 'fresh' ? 5 : 12), () => ({
            state: stateOfTokens(64, fresh(), count),
            questions: mode === 'rubric' ? fixed : choiceQuestion(k, fresh()),
          })),
        );
      }
      for (const k of [2, 10]) {
        const fixed = scoreQuestion(k, 4);
        results.push(
          await measureCase(engine, `score-${k}-${mode}`, 'options', `score ${k} levels, ${mode === 'rubric' ? 'known' : 'new'}`, scale(12), () => ({
            state: stateOfTokens(64, fresh(), count),
            questions: mode === 'rubric' ? fixed : scoreQuestion(k, fresh()),
          })),
        );
      }
    }
    sampleRss();
  }

  const cases = loadCases();
  const typical = pickCase(cases);
  if (wanted('cache') && typical) {
    console.error(`cache (jevbench-like request ${typical.id}):`);
    results.push(
      await measureCase(engine, 'cache-cold', 'cache', 'cold: new state, new questions', scale(12), () => {
        const n = fresh();
        return { state: withNonce(typical.state, n), questions: questionsWithNonce(typical.questions, n) };
      }),
    );
    results.push(
      await measureCase(engine, 'cache-new-state', 'cache', 'new state, known rubric', scale(12), () => ({
        state: withNonce(typical.state, fresh()),
        questions: typical.questions,
      })),
    );
    const repeated = { state: withNonce(typical.state, fresh()), questions: typical.questions };
    results.push(await measureCase(engine, 'cache-hit', 'cache', 'repeated request (cache hit)', scale(30), () => repeated));
    const cold = find('cache-cold')!;
    const hit = find('cache-hit')!;
    targets.push({ target: 'cache hit >= 5x faster than cold', measured: `${(cold.medianMs / hit.medianMs).toFixed(1)}x (${cold.medianMs.toFixed(1)} -> ${hit.medianMs.toFixed(2)} ms)`, met: cold.medianMs / hit.medianMs >= 5 });
    sampleRss();
  }

  if (wanted('jevbench') && cases.length > 0) {
    console.error(`jevbench sample (${cases.length} cases, one request each):`);
    const sample = quick ? cases.filter((_, i) => i % 3 === 0) : cases;
    results.push(...(await jevbenchGroup(engine, 'jevbench', sample, { timed, summarise, fresh, model })));
    targets.push(...jevbenchTargets(results, 'jevbench', ''));
    sampleRss();
  }

  if (wanted('jevbench-pool') && cases.length > 0 && createEnginePool) {
    const workers = Number(args.workers);
    console.error(`jevbench sample on a pool of ${workers} workers (one request at a time):`);
    const pool = await createEnginePool({ ...engineConfig, workers });
    await warmRubrics(pool, cases, fresh, model);
    const sample = quick ? cases.filter((_, i) => i % 3 === 0) : cases;
    results.push(...(await jevbenchGroup(pool, 'jevbench-pool', sample, { timed, summarise, fresh, model })));
    await pool.close();
    targets.push(...jevbenchTargets(results, 'jevbench-pool', `pool of ${workers}, `));
    sampleRss();
  }

  if (wanted('throughput') && cases.length > 0) {
    console.error('throughput (all requests at once; new states, known rubrics):');
    const batch = (n: number) => cases.map((c) => ({ state: withNonce(c.state, n), questions: c.questions }));
    // Warm-up until no question text is new to any engine (each pool worker has its own cache).
    const warm = async (target: Engine) => {
      for (let pass = 0; pass < 8; pass++) {
        const before = target.stats().questionEncodes;
        await throughput(target, 'warm', 'warm-up', batch(fresh()));
        if (target.stats().questionEncodes === before) break;
      }
    };
    await warm(engine);
    tput.push(await throughput(engine, 'single', '1 engine (main thread)', batch(fresh())));
    sampleRss();
    const workers = Number(args.workers);
    if (createEnginePool) {
      const pool = await createEnginePool({ ...engineConfig, workers });
      await warm(pool);
      tput.push(await throughput(pool, `pool-${workers}`, `pool of ${workers} workers`, batch(fresh())));
      sampleRss();
      await pool.close();
      const one = tput[0]!;
      const two = tput[1]!;
      const ratio = two.requestsPerSecond / one.requestsPerSecond;
      const others = Math.max(one.otherCores ?? 0, two.otherCores ?? 0);
      targets.push({
        target: `${workers} workers >= 1.7x one engine (throughput)`,
        measured: `${ratio.toFixed(2)}x (${one.requestsPerSecond.toFixed(1)} -> ${two.requestsPerSecond.toFixed(1)} req/s; pool used ${(two.ownCores ?? 0).toFixed(2)} cores, other processes ${others.toFixed(2)})`,
        met: ratio >= 1.7,
      });
    } else {
      console.error('  (no createEnginePool export: pool not measured)');
    }
  }

  sampleRss();
  let gitHead: string | undefined;
  try {
    gitHead = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    gitHead = undefined;
  }
  const report: BenchReport = {
    meta: {
      date: new Date().toISOString(),
      node: [process.version, ...process.execArgv].join(' '),
      cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
      cores: os.availableParallelism(),
      backend,
      model: engine.resolveModel(model ?? 'evalmodel-latest'),
      peakGflops: peak.gflops,
      peakKernel: peak.kernel,
      peakRssMiB: peakRss,
      quick,
      ...(gitHead ? { gitHead } : {}),
    },
    results,
    throughput: tput,
    targets,
  };
  await engine.close();
  console.log(formatReport(report));
  if (args.json) {
    writeFileSync(args.json, JSON.stringify(report, null, 2) + '\n');
    console.error(`JSON written to ${args.json}`);
  }
}

await main();
