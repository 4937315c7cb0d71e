/**
 * Prints a seeded random sample of converted or generated questions (the corpus left out) from
 * the written training split, for reading the labels by hand:
 * `node dist/src/training/data/sample.js [count=200] [seed=14]`.
 * @module
 */
import { rng } from '../data.js';
import { readDataSplit } from './batches.js';
import { sample } from './util.js';

function main(): void {
  const count = Number(process.argv[2] ?? 200);
  const seed = Number(process.argv[3] ?? 14);
  const items = readDataSplit('train')
    .filter((c) => !c.source.startsWith('corpus/'))
    .flatMap((c) => Object.keys(c.questions).map((qid) => ({ c, qid })));
  sample(items, count, rng(seed)).forEach(({ c, qid }, i) => {
    const q = c.questions[qid]!;
    const state = typeof c.state === 'string' ? c.state : JSON.stringify(c.state);
    const options = q.type === 'noul' ? (q.criteria ? ` criteria=${JSON.stringify(q.criteria)}` : '') : ` options=${JSON.stringify(q.criteria)}`;
    console.log(`#${i + 1} [${c.source}] ${c.id} ${qid}\n  STATE: ${state.slice(0, 700)}${state.length > 700 ? '...' : ''}\n  ${q.type.toUpperCase()}: ${JSON.stringify(q.instructions ?? null)}${options.slice(0, 600)}\n  GOLD: ${JSON.stringify(c.gold[qid])}\n`);
  });
}

main();
