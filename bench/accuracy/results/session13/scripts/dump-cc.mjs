// Session 13 diagnostic (not shipped): engine answers of held-out cases against their state and against content-free states.
// Usage: copy into dist/ and run from the repository root (imports ./src/... of the build).
import { writeFileSync } from 'node:fs';
import { createEngine } from './src/engine/engine.js';
import { renderQuestion } from './src/canonical/index.js';
import { goldIndex, rng, shuffled } from './src/training/data.js';
import { loadTrainingCases } from './src/training/reader/examples.js';
import { logProbabilities } from './src/training/reader/base-logits.js';
import { runSettings } from './src/training/reader/train.js';
const [split, limit, out, shard, shards] = process.argv.slice(2);
const { cases } = loadTrainingCases(runSettings().data);
const todo = shuffled(cases.filter((c) => c.split === split && Object.keys(c.gold).length > 0), rng(5)).slice(0, Number(limit)).filter((_, i) => i % Number(shards ?? 1) === Number(shard ?? 0));
const engine = await createEngine({ exact: false, threads: 1 });
const NULLS = ['N/A', ''];
const lines = [];
const t0 = Date.now();
for (const [i, c] of todo.entries()) {
  const questions = Object.fromEntries(Object.keys(c.gold).map((q) => [q, c.questions[q]]));
  try {
    const res = await engine.evaluate(c.state, questions);
    const nulls = [];
    for (const s of NULLS) nulls.push((await engine.evaluate(s, questions)).answers);
    for (const [qid, a] of Object.entries(res.answers)) {
      const q = questions[qid];
      const r = renderQuestion(q);
      lines.push(JSON.stringify({ split, source: c.source, id: c.id, qid, type: q.type, n: r.keys.length, crit: q.type === 'noul' && !!(q.criteria), gold: goldIndex(q, c.gold[qid]), lp: logProbabilities(q, a), lp0: nulls.map((ans) => logProbabilities(q, ans[qid])) }));
    }
  } catch (e) { console.error('refused', c.source, c.id, String(e).slice(0, 100)); }
  if (i % 500 === 0) console.error(i, todo.length, ((Date.now() - t0) / 1000).toFixed(0) + ' s');
}
writeFileSync(out, lines.join('\n') + '\n');
await engine.close();
