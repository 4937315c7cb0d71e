/**
 * Answers of the engine on onnxruntime-node against the wasm engine on every question of the
 * given cases (default: jevbench-sample and the held-out split of the training data): the
 * largest difference of any probability, score or confidence, and how many exceed 1e-4.
 * (`test/encoder-onnx.test.ts` runs a sample of the same check in CI.)
 *
 *   node dist/bench/accuracy/parity.js [CASES...] [--split test]
 * @module
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine } from '../../src/index.js';
import { dataDir, loadCases, splitOf, type Case, type SplitName } from '../../src/training/data.js';
import type { Answer } from '../../src/types.js';

const { values, positionals } = parseArgs({ options: { split: { type: 'string', default: 'test' } }, allowPositionals: true, strict: true });

function numbers(answer: Answer): number[] {
  if (answer.type === 'noul') return [answer.noul];
  return [answer.confidence, ...Object.values(answer.probabilities), ...(answer.type === 'score' ? [answer.score] : [])];
}

const targets: { label: string; cases: Case[] }[] =
  positionals.length > 0
    ? positionals.map((p) => ({ label: p, cases: loadCases(p) }))
    : [
        { label: 'jevbench-sample', cases: loadCases(path.join(dataDir(), 'jevbench-sample')) },
        { label: `training data [${values.split}]`, cases: loadCases(path.join(dataDir(), 'train')).filter((c) => splitOf(c) === (values.split as SplitName)) },
      ];

const [native, wasm] = await Promise.all([createEngine({ backend: 'onnxruntime-node' }), createEngine({ backend: 'wasm' })]);
for (const { label, cases } of targets) {
  let questions = 0;
  let worst = 0;
  let over = 0;
  for (const c of cases) {
    const [a, b] = await Promise.all([native.evaluate(c.state, c.questions), wasm.evaluate(c.state, c.questions)]);
    for (const id of Object.keys(c.questions)) {
      const x = numbers(a.answers[id]!);
      const y = numbers(b.answers[id]!);
      const d = x.reduce((m, v, i) => Math.max(m, Math.abs(v - y[i]!)), x.length === y.length ? 0 : Infinity);
      worst = Math.max(worst, d);
      if (d > 1e-4) over++;
      questions++;
    }
  }
  console.log(`${label}: ${cases.length} cases, ${questions} questions; largest difference ${worst.toExponential(2)}; over 1e-4: ${over}`);
}
await Promise.all([native.close(), wasm.close()]);
