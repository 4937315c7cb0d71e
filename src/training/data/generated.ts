/**
 * All generated counterfactual pairs, by generator, with a split by pair group (a seeded hash
 * of the group: 80% train, 10% calib, 10% test).
 * @module
 */
import { unitHash, type SplitName } from '../data.js';
import { datePair } from './gen-dates.js';
import { numberPair } from './gen-numbers.js';
import { equalityPair, fieldPair, listPair } from './gen-records.js';
import { statePair } from './gen-states.js';
import type { DataCase, Placed } from './types.js';
import { randomFor, seedOf, type Random } from './util.js';

/**
 * Pair groups made per generator. Each generator draws from its own random stream, so adding one
 * (or changing its count) leaves the others' cases as they were.
 */
export const GENERATED_PAIRS: Record<string, number> = { numbers: 4000, dates: 2500, fields: 2500, lists: 2500, equality: 1500, states: 3000 };

const GENERATORS: Record<string, (index: number, random: Random) => DataCase[]> = {
  numbers: numberPair,
  dates: datePair,
  fields: fieldPair,
  lists: listPair,
  equality: equalityPair,
  states: statePair,
};

export function generatedCases(counts: Record<string, number> = GENERATED_PAIRS): Placed[] {
  const out: Placed[] = [];
  const seed = seedOf('split:generated');
  for (const [name, n] of Object.entries(counts)) {
    const random = randomFor(`generated:${name}`);
    for (let i = 0; i < n; i++) {
      const cases = GENERATORS[name]!(i, random);
      if (cases.length === 0) continue;
      const u = unitHash(cases[0]!.pair!, seed);
      const split: SplitName = u < 0.1 ? 'test' : u < 0.2 ? 'calib' : 'train';
      for (const c of cases) out.push({ split, case: c });
    }
  }
  return out;
}
