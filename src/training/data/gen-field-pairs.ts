/**
 * The heads' field-comparison cases (src/training/pairs.ts: a text and its copy, two unrelated
 * texts, or two texts sharing half their content, asked on similarity rubrics and two-option
 * choices) as a source of the reader's data, `pairs/fields`.
 *
 * The heads were trained on them and read two fields' likeness from the pair cosine; the reader,
 * which corrects the heads' answers, never saw a copy at the top of a rubric (the only similarity
 * source, `similarity/esnli_snli_devtest`, tops out at entailment), and each continuation of its
 * training wore that reading down: a copy of a field led an unrelated text by 0.63 levels of
 * three with the session-8 reader, 0.58 and 0.49 after the session-9 runs, 0.47 after the first
 * session-10 run (test/engine-pairs.test.ts asks more than 0.5). Made from the corpus's
 * training-split texts only, as for the heads; split by a seeded hash of the case (80/10/10), so
 * the held-out figures show the skill.
 * @module
 */
import { unitHash, type Case, type SplitName } from '../data.js';
import { pairCases } from '../pairs.js';
import type { Placed } from './types.js';
import { seedOf } from './util.js';

/** Cases made (the heads' training makes 600 per run; the reader's data is 50 times larger). */
export const FIELD_PAIRS = 3000;

export function fieldPairCases(placed: readonly Placed[], count = FIELD_PAIRS): Placed[] {
  const corpusTrain: Case[] = placed
    .filter((p) => p.split === 'train' && p.case.source.startsWith('corpus/'))
    .map((p) => ({ id: p.case.id, file: p.case.source.slice('corpus/'.length), state: p.case.state, questions: p.case.questions, gold: p.case.gold }));
  const seed = seedOf('split:pairs/fields');
  return pairCases(corpusTrain, count, seedOf('pairs/fields')).map((c) => {
    const u = unitHash(c.id, seed);
    const split: SplitName = u < 0.1 ? 'test' : u < 0.2 ? 'calib' : 'train';
    return { split, case: { id: `pairs/fields/${c.id}`, source: 'pairs/fields', state: c.state, questions: c.questions, gold: c.gold } };
  });
}
