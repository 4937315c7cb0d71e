/**
 * Reading-comprehension and fact-checking sets to noul cases over a passage: BoolQ, CondaQA,
 * PubMedQA (yes/no only), StrategyQA (its facts as the state), Fool Me Twice (claim against
 * evidence) and FOLIO (conclusion against premises: yes only when it follows). Passages over
 * {@link MAX_STATE_CHARS} are skipped, never cut: the answer may sit in the cut part.
 * @module
 */
import type { Placed, Row } from './types.js';
import { claimQuestion, questionQuestion } from './phrasings.js';
import { chunks, groupBy, listState, makeCase, MAX_STATE_CHARS, placed, stateChars, type Item } from './states.js';
import { normalizeText, publicSplitter, randomFor, tidy } from './util.js';

const yesNo = (a: unknown): boolean | null => (a === 'yes' || a === true ? true : a === 'no' || a === false ? false : null);

/** Passage + yes/no question sets; rows sharing a passage become one case of up to 4 questions. */
function passageQa(set: string, rows: readonly Row[], passageField: string, pairByQuestion: boolean): Placed[] {
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const usable = rows.filter((r) => yesNo(r.answer) !== null && tidy(String(r[passageField])).length <= MAX_STATE_CHARS);
  const out: Placed[] = [];
  if (pairByQuestion) {
    // CondaQA: the same question over minimally edited passages (negation cues changed): a
    // group of counterfactual cases; each passage is its own case, the group shares a split.
    for (const [q, group] of groupBy(usable, (r) => normalizeText(String(r.question)))) {
      const s = split(String(group[0]!.split), q);
      const pair = `${set}:${group[0]!.id}`;
      for (const r of group) {
        const item: Item = { question: questionQuestion(String(r.question), random), gold: yesNo(r.answer)! };
        out.push(placed(s, makeCase(set, String(r.id), tidy(String(r[passageField])), [item], group.length > 1 ? { pair } : {})));
      }
    }
    return out;
  }
  for (const [p, group] of groupBy(usable, (r) => normalizeText(String(r[passageField])))) {
    const s = split(String(group[0]!.split), p);
    chunks(group, 4).forEach((part, k) => {
      const items = part.map((r) => ({ question: questionQuestion(String(r.question), random), gold: yesNo(r.answer)! }));
      out.push(placed(s, makeCase(set, `${part[0]!.id}-${k}`, tidy(String(part[0]![passageField])), items)));
    });
  }
  return out;
}

export const boolq = (rows: readonly Row[]) => passageQa('boolq', rows, 'passage', false);
export const condaqa = (rows: readonly Row[]) => passageQa('condaqa', rows, 'passage', true);
export const pubmedqa = (rows: readonly Row[]) => passageQa('pubmedqa', rows, 'context', false);

/** StrategyQA: the annotators' facts as a list state, the question over it. */
export function strategyqa(rows: readonly Row[]): Placed[] {
  const set = 'strategyqa';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const gold = yesNo(r.answer);
    const facts = (r.facts as string[]).map(tidy).filter((f) => f !== '');
    if (gold === null || facts.length === 0) continue;
    const state = listState(facts, random);
    if (stateChars(state) > MAX_STATE_CHARS) continue;
    out.push(placed(split(String(r.split), String(r.id)), makeCase(set, String(r.id), state, [{ question: questionQuestion(String(r.question), random), gold }])));
  }
  return out;
}

/** Fool Me Twice: is the claim supported by the evidence? */
export function foolMeTwice(rows: readonly Row[]): Placed[] {
  const set = 'fool_me_twice';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const evidence = tidy(String(r.evidence));
    if (evidence.length > MAX_STATE_CHARS || (r.label !== 'supports' && r.label !== 'refutes')) continue;
    const item = { question: claimQuestion(String(r.claim), false, random), gold: r.label === 'supports' };
    out.push(placed(split(String(r.split), normalizeText(evidence)), makeCase(set, String(r.id), evidence, [item])));
  }
  return out;
}

/** FOLIO: premises as the state, each conclusion a question; yes only for "true". */
export function folio(rows: readonly Row[]): Placed[] {
  const set = 'folio';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  const key = (r: Row) => (r.premises as string[]).map((p) => normalizeText(p)).join('|');
  for (const [k, group] of groupBy(rows, key)) {
    const premises = (group[0]!.premises as string[]).map(tidy).filter((p) => p !== '');
    const state = listState(premises, random);
    if (stateChars(state) > MAX_STATE_CHARS) continue;
    const s = split(String(group[0]!.split), k);
    // Half of the "unknown" conclusions, so that yes is not the minority answer.
    const kept = group.filter((r) => r.label !== 'unknown' || random() < 0.5);
    chunks(kept, 4).forEach((part, i) => {
      const items = part.map((r) => ({ question: claimQuestion(String(r.conclusion), false, random, 0.5), gold: r.label === 'true' }));
      out.push(placed(s, makeCase(set, `${part[0]!.id}-${i}`, state, items)));
    });
  }
  return out;
}
