/**
 * The jevbench-sample group of bench/speed: every case of the shared sample as one request,
 * in three modes (all new, new state with a known rubric, repeated request), one request at a
 * time. Run on the single engine (group `jevbench`) and on an engine pool (`jevbench-pool`),
 * where an idle worker encodes some of a busy one's state windows: the pool's figure is the
 * latency of one request with both cores free to work on it.
 * @module
 */
import type { Engine, Questions, State } from '../../src/index.js';
import { questionsWithNonce, withNonce, type BenchCase } from './inputs.js';
import type { CaseResult, TargetResult } from './report.js';

interface Request {
  state: State;
  questions: Questions;
}

/** What the group needs from main.ts: its timer and summary, fresh seeds and the model. */
export interface JevbenchDeps<Run> {
  timed(engine: Engine, req: Request): Promise<Run>;
  summarise(id: string, group: string, label: string, runs: Run[]): CaseResult;
  fresh(): number;
  model: string | undefined;
}

export const MODES = [
  ['cold', 'cold: new state, new questions'],
  ['new-state', 'new state, known rubric'],
  ['hit', 'repeated request (cache hit)'],
] as const;

/** Runs the three modes over `cases` on `engine`; ids are `<group>-<mode>`. */
export async function jevbenchGroup<Run>(engine: Engine, group: string, cases: readonly BenchCase[], deps: JevbenchDeps<Run>): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const [mode, label] of MODES) {
    const runs: Run[] = [];
    const pass = deps.fresh();
    for (const c of cases) {
      const req =
        mode === 'cold'
          ? { state: withNonce(c.state, pass), questions: questionsWithNonce(c.questions, pass) }
          : mode === 'new-state'
            ? { state: withNonce(c.state, pass), questions: c.questions }
            : { state: c.state, questions: c.questions };
      // Known rubric: asked once before with another state (a pool routes that one by its own
      // state, so a worker may still meet the rubric for the first time: warm the pool first).
      if (mode !== 'cold') await engine.evaluate(mode === 'hit' ? req.state : withNonce(c.state, -pass), req.questions, deps.model);
      runs.push(await deps.timed(engine, req));
    }
    results.push(deps.summarise(`${group}-${mode}`, group, label, runs));
  }
  return results;
}

/** The target, p50 under 50 ms, for each mode of a group. */
export function jevbenchTargets(results: readonly CaseResult[], group: string, what: string): TargetResult[] {
  return results
    .filter((r) => r.group === group)
    .map((r) => ({ target: `jevbench-sample p50 < 50 ms (${what}${r.label})`, measured: `${r.medianMs.toFixed(1)} ms (p90 ${r.p90Ms.toFixed(1)})`, met: r.medianMs < 50 }));
}

/** Warms every worker of a pool with every rubric: each case under several states. */
export async function warmRubrics(engine: Engine, cases: readonly BenchCase[], fresh: () => number, model: string | undefined, passes = 6): Promise<void> {
  for (let p = 0; p < passes; p++) {
    const n = fresh();
    for (const c of cases) await engine.evaluate(withNonce(c.state, n), c.questions, model);
  }
}
