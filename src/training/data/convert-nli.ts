/**
 * Entailment sets to noul cases: yes only for entailment, no for neutral and contradiction.
 * SNLI and MultiNLI premises are grouped 1 to 4 to a state (so states are not always one
 * sentence), asking the hypotheses of each premise in the group; INFOTABS tables become JSON
 * object states. A premise joins a group only when no non-entailed hypothesis shares a content
 * word with another premise of the group: otherwise another premise could make a "no" true.
 * Half of the neutral and contradiction rows are used, so that yes and no come in equal shares.
 * @module
 */
import type { JsonObject } from '../../types.js';
import type { SplitName } from '../data.js';
import type { Placed, Row } from './types.js';
import { claimQuestion } from './phrasings.js';
import { chunks, groupBy, listState, makeCase, MAX_STATE_CHARS, placed, stateChars, type Item } from './states.js';
import { between, normalizeText, publicSplitter, randomFor, shuffledBy, tidy } from './util.js';

const STOP = new Set(
  ('a an the is are was were be been being of in on at to for with by from and or but not no it its this that these those ' +
    'there their they he she his her him them some one two three has have had do does did as up down out into over very ' +
    'while who which what where when than then so just can could will would should may might must also too all any each').split(' '),
);

/** Crude stems of a text's content words (first five letters), for the grouping guard. */
export function contentStems(text: string): Set<string> {
  return new Set(
    normalizeText(text)
      .split(' ')
      .filter((w) => w.length > 2 && !STOP.has(w))
      .map((w) => w.slice(0, 5)),
  );
}

interface Premise {
  text: string;
  rows: Row[];
  stems: Set<string>;
  /** Stems of each non-entailed hypothesis. */
  risky: Set<string>[];
}

/** Whether every content word of the hypothesis occurs in the premise. */
const copied = (hypothesis: string, premise: Set<string>) => [...contentStems(hypothesis)].every((w) => premise.has(w));

const disjoint = (a: Set<string>, b: Set<string>) => [...a].every((w) => !b.has(w));

/** Whether premise `p` may share a state with the `group` (both directions of the guard). */
function compatible(p: Premise, group: readonly Premise[]): boolean {
  return group.every((g) => p.risky.every((h) => disjoint(h, g.stems)) && g.risky.every((h) => disjoint(h, p.stems)));
}

function textNli(set: string, rows: readonly Row[], labelField = 'label'): Placed[] {
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const bySplit = new Map<SplitName, Premise[]>();
  for (const [key, group] of groupBy(rows, (r) => normalizeText(String(r.premise)))) {
    const text = tidy(String(group[0]!.premise));
    if (text.length > MAX_STATE_CHARS || key === '') continue;
    const s = split(String(group[0]!.split), key);
    const risky = group.filter((r) => r[labelField] !== 'entailment').map((r) => contentStems(String(r.hypothesis)));
    const list = bySplit.get(s) ?? [];
    list.push({ text, rows: group, stems: contentStems(text), risky });
    bySplit.set(s, list);
  }
  const out: Placed[] = [];
  for (const [s, premises] of bySplit) {
    const pool = shuffledBy(premises, random);
    const used = new Set<number>();
    for (let i = 0; i < pool.length; i++) {
      if (used.has(i)) continue;
      used.add(i);
      const group = [pool[i]!];
      const want = random() < 0.3 ? 1 : between(2, 4, random);
      // Look a little ahead for compatible premises; a state stays under the length cap.
      for (let j = i + 1; j < Math.min(pool.length, i + 40) && group.length < want; j++) {
        if (used.has(j) || !compatible(pool[j]!, group)) continue;
        if (group.reduce((n, g) => n + g.text.length + 1, pool[j]!.text.length) > MAX_STATE_CHARS) continue;
        group.push(pool[j]!);
        used.add(j);
      }
      const state = listState(group.map((g) => g.text), random);
      const items: Item[] = group.flatMap((g) =>
        g.rows
          .filter((r) => ['entailment', 'neutral', 'contradiction'].includes(String(r[labelField])))
          // Half of the neutral and contradiction hypotheses: yes and no in about equal shares;
          // and half of the entailed ones made only of the premise's own words (nearly all of
          // those are yes: a shortcut the report measures).
          .filter((r) => (r[labelField] === 'entailment' ? !copied(String(r.hypothesis), g.stems) || random() < 0.5 : random() < 0.5))
          .map((r) => ({ question: claimQuestion(tidy(String(r.hypothesis)), false, random), gold: r[labelField] === 'entailment' })),
      );
      const orderedItems = shuffledBy(items, random);
      chunks(orderedItems, 6).forEach((part, k) => out.push(placed(s, makeCase(set, `${group[0]!.rows[0]!.id}-${k}`, state, part))));
    }
  }
  return out;
}

export const snli = (rows: readonly Row[]) => textNli('esnli_snli_devtest', rows);
export const mnli = (rows: readonly Row[]) => textNli('taxinli_mnli', rows);

/** An INFOTABS table as a JSON object: one key per row, single values unwrapped. */
export function tableState(table: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(table)) {
    const values = (Array.isArray(v) ? v : [v]).map((x) => tidy(String(x))).filter((x) => x !== '');
    if (values.length === 0) continue;
    out[tidy(k)] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/** INFOTABS: each table a JSON state asked its hypotheses (up to 5 per case). */
export function infotabs(rows: readonly Row[]): Placed[] {
  const set = 'infotabs';
  const random = randomFor(set);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const [tableId, group] of groupBy(rows, (r) => String(r.table_id))) {
    const state = tableState(group[0]!.table as Record<string, unknown>);
    if (stateChars(state) > MAX_STATE_CHARS) continue;
    const s = split(String(group[0]!.split), tableId);
    const tableStems = contentStems(JSON.stringify(state));
    // As for text: half of the non-entailed rows, and half of the entailed ones made only of
    // the table's own words.
    const kept = group.filter((r) => (r.label === 'entailment' ? !copied(String(r.hypothesis), tableStems) || random() < 0.5 : random() < 0.5));
    const items = shuffledBy(kept, random).map((r) => ({ question: claimQuestion(tidy(String(r.hypothesis)), true, random), gold: r.label === 'entailment' }));
    chunks(items, 5).forEach((part, k) => out.push(placed(s, makeCase(set, `${tableId}-${k}`, state, part))));
  }
  return out;
}
