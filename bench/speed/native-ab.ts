/**
 * The common setup of a native-vs-tfjs A/B of one model part (bench/speed/heads.ts,
 * reader.ts): the jevbench-sample cases, one engine whose encoder runs on onnxruntime-node,
 * and every case answered once with the part on each path, so that both are warm and every
 * rubric is known before anything is timed.
 * @module
 */
import os from 'node:os';
import { createEngine, type Engine } from '../../src/index.js';
import { loadCases, withNonce, type BenchCase } from './inputs.js';

/** The machine's load averages, for the report. */
export const loadAverages = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' ');

export async function nativeAB(setNative: (on: boolean) => void): Promise<{ cases: BenchCase[]; engine: Engine }> {
  const cases = loadCases();
  if (cases.length === 0) throw new Error('no jevbench-sample cases (set EVALMODEL_JEVBENCH or EVALMODEL_DATA)');
  const engine = await createEngine({ backend: 'onnxruntime-node' });
  console.log(`load average before: ${loadAverages()} (${os.cpus().length} CPUs)`);
  for (const native of [true, false]) {
    setNative(native);
    for (const c of cases) await engine.evaluate(withNonce(c.state, 999), c.questions);
  }
  return { cases, engine };
}
