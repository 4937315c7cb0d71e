/**
 * `npm run bench:speed:backends`: the encoder backends side by side in one run, on one engine
 * and through an engine pool, with the runs alternated (every configuration once, then every
 * configuration again, ...) so that a change in the machine's load falls on all of them.
 *
 *   node dist/bench/speed/backends.js [--rounds 2] [--configs ID,...] [--json FILE] [--quick]
 *
 * Configurations (ids): wasm-1 (the tfjs wasm engine, one engine in this thread), wasm-pool
 * (2 workers), ort-1 (onnxruntime-node, one intra-op thread), ort-1t2 (one engine, two intra-op
 * threads), ort-pool (2 workers, one thread each), ort-1-tfjs-heads (ort-1 with the trained heads
 * on tfjs-wasm, as before they ran on onnxruntime: the A/B of heads/native/). Per configuration: jevbench-sample one request
 * at a time (all new / new state + known rubric / repeated), and throughput with every request
 * at once (new states, known rubrics: a server's load). GFLOP/s of a one-engine configuration
 * are the encoder's counted work over the wall time of the known-rubric requests, against the
 * peak measured in the same run on that backend (wasm: our gemm kernel; native: onnxruntime's
 * MatMul, one thread).
 * @module
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { readEncoderWork } from '../../src/encoder/index.js';
import { setNativeHeadsEnabled } from '../../src/heads/native/backend.js';
import { createEngine, createEnginePool, type BackendName, type Engine } from '../../src/index.js';
import { loadCases, withNonce } from './inputs.js';
import { jevbenchGroup, warmRubrics } from './jevbench.js';
import { cpuNow, measureNativePeak, measurePeak } from './machine.js';
import { median, quantile, type CaseResult } from './report.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    configs: { type: 'string' },
    json: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
  strict: true,
});

interface Config {
  id: string;
  label: string;
  backend: BackendName;
  workers: number;
  threads: number;
  /** false: the trained heads on tfjs even beside the native encoder (setNativeHeadsEnabled). */
  nativeHeads?: boolean;
}

const CONFIGS: Config[] = [
  { id: 'wasm-1', label: 'wasm, one engine', backend: 'wasm', workers: 1, threads: 1 },
  { id: 'wasm-pool', label: 'wasm, pool of 2', backend: 'wasm', workers: 2, threads: 1 },
  { id: 'ort-1', label: 'onnxruntime, one engine, 1 thread', backend: 'onnxruntime-node', workers: 1, threads: 1 },
  { id: 'ort-1t2', label: 'onnxruntime, one engine, 2 threads', backend: 'onnxruntime-node', workers: 1, threads: 2 },
  { id: 'ort-pool', label: 'onnxruntime, pool of 2 (1 thread each)', backend: 'onnxruntime-node', workers: 2, threads: 1 },
  { id: 'ort-1-tfjs-heads', label: 'onnxruntime, 1 thread, heads on tfjs', backend: 'onnxruntime-node', workers: 1, threads: 1, nativeHeads: false },
];

interface Run {
  ms: number;
  cpuMs: number;
  flops: number;
}

interface Measured {
  config: string;
  round: number;
  jevbench: CaseResult[];
  throughput: { requestsPerSecond: number; p50Ms: number; totalMs: number };
}

let seed = 50_000;
const fresh = () => seed++;

async function timed(engine: Engine, req: { state: unknown; questions: unknown }): Promise<Run> {
  const before = readEncoderWork().flops;
  const cpu = cpuNow();
  const start = performance.now();
  await engine.evaluate({ model: 'evalmodel-latest', state: req.state, questions: req.questions });
  return { ms: performance.now() - start, cpuMs: cpuNow() - cpu, flops: readEncoderWork().flops - before };
}

function summarise(id: string, group: string, label: string, runs: Run[]): CaseResult {
  const times = runs.map((r) => r.ms).sort((a, b) => a - b);
  const med = quantile(times, 0.5);
  const flops = median(runs.map((r) => r.flops));
  return { id, group, label, iterations: runs.length, medianMs: med, p90Ms: quantile(times, 0.9), minMs: times[0]!, cpuMs: median(runs.map((r) => r.cpuMs)), inputTokens: 0, encodedTokens: 0, flops, gflops: flops / (med * 1e6) };
}

async function measure(config: Config, round: number, cases: ReturnType<typeof loadCases>): Promise<Measured> {
  const engineConfig = { backend: config.backend, threads: config.threads };
  setNativeHeadsEnabled(config.nativeHeads ?? true);
  const engine = config.workers === 1 ? await createEngine(engineConfig) : await createEnginePool({ ...engineConfig, workers: config.workers });
  try {
    const stats = engine.stats();
    if (stats.backend !== config.backend) throw new Error(`${config.id}: engine runs on ${stats.backend}`);
    await warmRubrics(engine, cases, fresh, undefined, config.workers === 1 ? 1 : 4);
    const jevbench = await jevbenchGroup(engine, config.id, cases, { timed, summarise, fresh, model: undefined });
    // Throughput: every request at once, new states, known rubrics.
    const n = fresh();
    const start = performance.now();
    const latencies = await Promise.all(
      cases.map(async (c) => {
        const s = performance.now();
        await engine.evaluate(withNonce(c.state, n), c.questions);
        return performance.now() - s;
      }),
    );
    const totalMs = performance.now() - start;
    const throughput = { requestsPerSecond: (cases.length * 1000) / totalMs, p50Ms: median(latencies), totalMs };
    const by = (mode: string) => jevbench.find((r) => r.id === `${config.id}-${mode}`)!.medianMs.toFixed(1);
    console.error(`round ${round} ${config.label.padEnd(40)} p50 all new ${by('cold')} ms, known rubric ${by('new-state')} ms, hit ${by('hit')} ms; throughput ${throughput.requestsPerSecond.toFixed(1)} req/s`);
    return { config: config.id, round, jevbench, throughput };
  } finally {
    await engine.close();
  }
}

async function main(): Promise<void> {
  const all = loadCases();
  if (all.length === 0) throw new Error('no jevbench-sample cases (../shared/data/jevbench-sample or EVALMODEL_JEVBENCH)');
  const cases = args.quick ? all.filter((_, i) => i % 3 === 0) : all;
  const wanted = args.configs ? CONFIGS.filter((c) => args.configs!.split(',').includes(c.id)) : CONFIGS;
  const rounds = Number(args.rounds);
  // Peaks first, each on its own backend (the wasm one is the process' tfjs backend).
  await createEngine({ backend: 'wasm' }).then((e) => e.close());
  const wasmPeak = measurePeak();
  const nativePeak = await measureNativePeak();
  console.error(`peak wasm ${wasmPeak.gflops.toFixed(1)} GFLOP/s (${wasmPeak.kernel})`);
  console.error(nativePeak ? `peak native ${nativePeak.gflops.toFixed(1)} GFLOP/s (${nativePeak.kernel})` : 'onnxruntime-node does not load: native configurations skipped');
  const configs = wanted.filter((c) => c.backend !== 'onnxruntime-node' || nativePeak);
  const measured: Measured[] = [];
  for (let round = 1; round <= rounds; round++) for (const c of configs) measured.push(await measure(c, round, cases));

  // Per configuration: the median over rounds of each figure.
  const rows = configs.map((c) => {
    const mine = measured.filter((m) => m.config === c.id);
    const fig = (mode: string) => median(mine.map((m) => m.jevbench.find((r) => r.id === `${c.id}-${mode}`)!.medianMs));
    const known = mine.map((m) => m.jevbench.find((r) => r.id === `${c.id}-new-state`)!);
    const gflops = c.workers === 1 ? median(known.map((r) => r.gflops)) : NaN;
    const peak = c.backend === 'onnxruntime-node' ? nativePeak!.gflops : wasmPeak.gflops;
    const cpu = median(known.map((r) => r.cpuMs ?? NaN));
    return { config: c, cold: fig('cold'), known: fig('new-state'), knownCpu: cpu, hit: fig('hit'), rps: median(mine.map((m) => m.throughput.requestsPerSecond)), gflops, percentPeak: (100 * gflops) / peak };
  });
  const lines = [
    `evalmodel bench:speed:backends  ${new Date().toISOString()}  node ${process.version}  ${os.cpus()[0]?.model.trim() ?? '?'} x${os.availableParallelism()}  ${cases.length} jevbench-sample cases, ${rounds} alternated round(s), medians over rounds`,
    `peak: wasm ${wasmPeak.gflops.toFixed(1)} GFLOP/s (${wasmPeak.kernel})`,
    nativePeak ? `peak: native ${nativePeak.gflops.toFixed(1)} GFLOP/s (${nativePeak.kernel})` : 'peak: native -',
    '',
    'p50 ms of jevbench-sample requests one at a time (all new / new state + known rubric / repeated); cpu: CPU time of the known-rubric requests, all threads',
    `${'configuration'.padEnd(40)} ${'all new'.padStart(8)} ${'known'.padStart(8)} ${'cpu'.padStart(7)} ${'hit'.padStart(7)} ${'req/s'.padStart(7)} ${'GFLOP/s'.padStart(8)} ${'% peak'.padStart(7)}`,
    ...rows.map((r) => `${r.config.label.padEnd(40)} ${r.cold.toFixed(1).padStart(8)} ${r.known.toFixed(1).padStart(8)} ${r.knownCpu.toFixed(1).padStart(7)} ${r.hit.toFixed(1).padStart(7)} ${r.rps.toFixed(1).padStart(7)} ${Number.isNaN(r.gflops) ? '-'.padStart(8) : r.gflops.toFixed(1).padStart(8)} ${Number.isNaN(r.gflops) ? '-'.padStart(7) : r.percentPeak.toFixed(0).padStart(7)}`),
  ];
  const row = (id: string) => rows.find((r) => r.config.id === id);
  const [wasm1, wasmPool] = [row('wasm-1'), row('wasm-pool')];
  // The heads-on-tfjs configuration is the "before" of an A/B, not a candidate for the targets.
  const natives = rows.filter((r) => r.config.backend === 'onnxruntime-node' && r.config.nativeHeads !== false);
  if (natives.length > 0) {
    const bestKnown = natives.reduce((a, b) => (b.known < a.known ? b : a));
    const bestRps = natives.reduce((a, b) => (b.rps > a.rps ? b : a));
    const ort1 = row('ort-1');
    lines.push('', 'targets (issue 17):');
    if (wasm1 && ort1) lines.push(`  one engine, known rubric p50: wasm / onnxruntime = ${(wasm1.known / ort1.known).toFixed(2)}x (>= 2.5x: ${wasm1.known / ort1.known >= 2.5 ? 'yes' : 'NO'})`);
    lines.push(`  best onnxruntime known-rubric p50 ${bestKnown.known.toFixed(1)} ms (${bestKnown.config.label}) (<= 20 ms: ${bestKnown.known <= 20 ? 'yes' : 'NO'})`);
    lines.push(`  all new / known rubric on it: ${(bestKnown.cold / bestKnown.known).toFixed(2)}x (<= 3x: ${bestKnown.cold / bestKnown.known <= 3 ? 'yes' : 'NO'})`);
    const before = row('ort-1-tfjs-heads');
    if (before && ort1) lines.push(`  one engine, known rubric p50, heads on tfjs / on onnxruntime: ${before.known.toFixed(1)} / ${ort1.known.toFixed(1)} ms = ${(before.known / ort1.known).toFixed(2)}x; hit ${before.hit.toFixed(1)} / ${ort1.hit.toFixed(1)} ms`);
    if (wasmPool) lines.push(`  throughput, best onnxruntime (${bestRps.config.label}) / wasm pool: ${(bestRps.rps / wasmPool.rps).toFixed(2)}x (>= 2.5x: ${bestRps.rps / wasmPool.rps >= 2.5 ? 'yes' : 'NO'})`);
  }
  console.log(lines.join('\n'));
  if (args.json) writeFileSync(args.json, JSON.stringify({ wasmPeak, nativePeak, rows, measured }, null, 2) + '\n');
}

await main();
