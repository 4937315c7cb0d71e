/**
 * A diagnostic, not a model: how much of a labelled set's answer the frozen encoder's pooled
 * embedding holds linearly. 10-fold cross-validated multinomial logistic regression on the
 * pooled embedding of each case's state, trained and tested on the set itself; nothing is saved
 * or shipped. It bounds what heads on this encoder can reach on sets such as external/ SST-2,
 * which are measured only and never trained on by the shipped model.
 *
 *   node dist/bench/accuracy/probe.js ../shared/data/external/sst2-sample1000.jsonl
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { flattenWhitespace, renderState } from '../../src/canonical/index.js';
import { Encoder } from '../../src/encoder/index.js';
import { createTokenizer, loadVocabulary } from '../../src/tokenizer/index.js';
import type { State } from '../../src/types.js';

const file = process.argv[2];
if (!file) {
  console.error('usage: node dist/bench/accuracy/probe.js <cases.jsonl> (one question per case)');
  process.exit(2);
}
const cases = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { state: State; gold: Record<string, unknown> });
const encoder = await Encoder.load();
const tokenizer = createTokenizer(await loadVocabulary());
const labels = [...new Set(cases.map((c) => String(Object.values(c.gold)[0])))].sort();
const X = await encoder.embedTexts(cases.map((c) => tokenizer.encode(flattenWhitespace(renderState(c.state)))));
const Y = cases.map((c) => labels.indexOf(String(Object.values(c.gold)[0])));
const D = X[0]!.length;
const K = labels.length;

const logits = (W: Float64Array[], x: Float32Array) => W.map((w) => x.reduce((s, v, d) => s + w[d]! * v, w[D]!));

/** Full-batch gradient descent on the softmax loss with a small L2 penalty. */
function fit(rows: readonly number[], epochs = 300, rate = 0.5, l2 = 1e-3): Float64Array[] {
  const W = Array.from({ length: K }, () => new Float64Array(D + 1));
  for (let e = 0; e < epochs; e++) {
    const G = Array.from({ length: K }, () => new Float64Array(D + 1));
    for (const i of rows) {
      const z = logits(W, X[i]!);
      const m = Math.max(...z);
      const ex = z.map((v) => Math.exp(v - m));
      const sum = ex.reduce((a, b) => a + b, 0);
      for (let k = 0; k < K; k++) {
        const g = ex[k]! / sum - (Y[i] === k ? 1 : 0);
        for (let d = 0; d < D; d++) G[k]![d]! += g * X[i]![d]!;
        G[k]![D]! += g;
      }
    }
    for (let k = 0; k < K; k++) for (let d = 0; d <= D; d++) W[k]![d]! -= rate * (G[k]![d]! / rows.length + (d < D ? l2 * W[k]![d]! : 0));
  }
  return W;
}

let correct = 0;
for (let fold = 0; fold < 10; fold++) {
  const train = cases.flatMap((_, i) => (i % 10 === fold ? [] : [i]));
  const W = fit(train);
  for (let i = fold; i < cases.length; i += 10) {
    const z = logits(W, X[i]!);
    if (z.indexOf(Math.max(...z)) === Y[i]) correct++;
  }
}
console.log(`${path.basename(file)}: ${cases.length} cases, labels ${labels.join(', ')}; 10-fold linear probe accuracy ${(correct / cases.length).toFixed(3)}`);
