/**
 * The well-formedness check every emitted case passes: at least one question, each with a gold
 * of the right kind (noul boolean, choice an option name among 2 to 255 unique options, score
 * a level index of 2 to 10 levels), non-empty instructions where present.
 * @module
 */
import { MAX_CHOICE_OPTIONS, MAX_SCORE_LEVELS } from '../../limits.js';
import type { DataCase } from './types.js';

/** Why a case is malformed, or null when it is fine. */
export function caseProblem(c: DataCase): string | null {
  const qids = Object.keys(c.questions);
  if (qids.length === 0) return 'no questions';
  if (c.state === '' || c.state === null || c.state === undefined) return 'empty state';
  for (const qid of qids) {
    const q = c.questions[qid]!;
    const g = c.gold[qid];
    if (g === undefined) return `${qid}: no gold`;
    if (typeof q.instructions === 'string' && q.instructions.trim() === '') return `${qid}: empty instructions`;
    switch (q.type) {
      case 'noul':
        if (typeof g !== 'boolean') return `${qid}: noul gold ${JSON.stringify(g)}`;
        break;
      case 'choice': {
        const names = Object.keys(q.criteria);
        if (names.length < 2 || names.length > MAX_CHOICE_OPTIONS) return `${qid}: ${names.length} options`;
        if (typeof g !== 'string' || !names.includes(g)) return `${qid}: gold ${JSON.stringify(g)} not an option`;
        break;
      }
      case 'score':
        if (q.criteria.length < 2 || q.criteria.length > MAX_SCORE_LEVELS) return `${qid}: ${q.criteria.length} levels`;
        if (typeof g !== 'number' || !Number.isInteger(g) || g < 0 || g >= q.criteria.length) return `${qid}: level ${JSON.stringify(g)}`;
        if (new Set(q.criteria.map((l) => JSON.stringify(l))).size !== q.criteria.length) return `${qid}: repeated levels`;
        break;
      default:
        return `${qid}: unknown type`;
    }
  }
  return null;
}
