import { describe, expect, it } from 'vitest';
import { EXACT_PROBABILITY, exactAnswer, explainExact } from '../src/exact/index.js';
import { parseDate } from '../src/exact/dates.js';
import { parseRange } from '../src/exact/outcomes.js';
import { findQuantities, parseQuantity } from '../src/exact/quantity.js';
import type { Answer, Question } from '../src/types.js';
import { noul, yes } from './exact-helpers.js';

function picked(answer: Answer | undefined): string | undefined {
  if (!answer) return undefined;
  if (answer.type === 'choice') return answer.choice;
  if (answer.type === 'score') return Object.entries(answer.probabilities).sort((a, b) => b[1] - a[1])[0]![0];
  return undefined;
}

describe('quantities', () => {
  it('reads digits, currencies, multipliers, units and written-out numbers', () => {
    expect(parseQuantity('$1,250.50')).toMatchObject({ value: 1250.5, dim: 'money:USD' });
    expect(parseQuantity('€2k')).toMatchObject({ value: 2000, dim: 'money:EUR' });
    expect(parseQuantity('$1.2 million')).toMatchObject({ value: 1.2e6, dim: 'money:USD' });
    expect(parseQuantity('12%')).toMatchObject({ value: 12, dim: 'percent' });
    expect(parseQuantity('0.5 kg')).toMatchObject({ value: 500, dim: 'mass' });
    expect(parseQuantity('500 g')).toMatchObject({ value: 500, dim: 'mass' });
    expect(parseQuantity('2 weeks')).toMatchObject({ value: 14 * 86400, dim: 'time' });
    expect(parseQuantity('two hundred and fifty')).toMatchObject({ value: 250, dim: 'count' });
    expect(parseQuantity('sixty-five km/h')).toMatchObject({ value: 65, dim: 'speed' });
    expect(parseQuantity('a dozen')).toMatchObject({ value: 12, dim: 'count' });
    expect(parseQuantity('half an hour')).toMatchObject({ value: 1800, dim: 'time' });
    expect(parseQuantity('the total')).toBeUndefined();
  });

  it('skips numbers inside dates, times, ids and versions', () => {
    const found = findQuantities('Order INV-2041 on 2025-03-01 at 10:30, v1.2.3, total $64.90 for 3 items');
    expect(found.map((q) => q.text)).toEqual(['$64.90', '3']);
  });

  it('reads dates in unambiguous forms only', () => {
    expect(parseDate('2025-03-01')).toMatchObject({ year: 2025, month: 3, day: 1 });
    expect(parseDate('1 March 2025')).toMatchObject({ year: 2025, month: 3, day: 1 });
    expect(parseDate('March 1, 2025')).toMatchObject({ year: 2025, month: 3, day: 1 });
    expect(parseDate('15 Aug')).toMatchObject({ month: 8, day: 15 });
    expect(parseDate('03/04/2025')).toBeUndefined();
    expect(parseDate('2025-02-30')).toBeUndefined();
  });

  it('reads option ranges', () => {
    expect(parseRange('under $500')).toMatchObject({ hi: { value: 500 }, hiOpen: true });
    expect(parseRange('$500 to $1,999')).toMatchObject({ lo: { value: 500 }, hi: { value: 1999 }, loOpen: false, hiOpen: false });
    expect(parseRange('6 or more')).toMatchObject({ lo: { value: 6 }, loOpen: false });
    expect(parseRange('72% to under 76%')).toMatchObject({ lo: { value: 72, dim: 'percent' }, hi: { value: 76 }, hiOpen: true });
    expect(parseRange('0-24%')).toMatchObject({ lo: { value: 0, dim: 'percent' }, hi: { value: 24, dim: 'percent' } });
    expect(parseRange('two or three')).toMatchObject({ lo: { value: 2 }, hi: { value: 3 } });
    expect(parseRange('above 10 °C up to 20 °C')).toMatchObject({ lo: { value: 10, dim: 'temp' }, loOpen: true, hi: { value: 20 }, hiOpen: false });
    expect(parseRange('fast')).toBeUndefined();
  });
});

describe('yes/no questions the data decides', () => {
  const order = {
    total_eur: 1250,
    wind: { speed_kmh: 38, gust_kmh: 67 },
    advisory: { gale_gust_kmh: 62 },
    billing: { country: 'DE' },
    shipping: { country: 'de' },
    ordered: '2025-03-01',
    delivered: '2025-03-12',
    gift: false,
    notes: '',
    items: [
      { sku: 'A', qty: 2, price: 19.5, category: 'tools' },
      { sku: 'B', qty: 1, price: 240, category: 'garden' },
      { sku: 'C', qty: 5, price: 3, category: 'tools' },
    ],
  };

  it('compares a referenced field with a constant, in the field name\'s unit', () => {
    expect(yes(order, 'Is `total_eur` below 100?')).toBe(false);
    expect(yes(order, 'Is `total_eur` above 1,000?')).toBe(true);
    expect(yes(order, '`wind.gust_kmh` > 65')).toBe(true);
    expect(yes(order, 'Is `wind.speed_kmh` at least 40 km/h?')).toBe(false);
    expect(yes(order, 'Is `total_eur` between 1,000 and 2,000?')).toBe(true);
    expect(yes(order, 'Is `total_eur` no more than 1250?')).toBe(true);
  });

  it('never compares across currencies or dimensions', () => {
    expect(yes(order, 'Is `total_eur` below $100?')).toBeUndefined();
    expect(yes(order, 'Is `wind.gust_kmh` above 60 kg?')).toBeUndefined();
  });

  it('binds a field named by the question\'s words, and only one', () => {
    expect(yes(order, 'Are gusts above 65 km/h?')).toBe(true);
    expect(yes({ report: { total: 980 } }, 'Is the report total above $1,000?')).toBe(false);
    // "speed" names two fields (wind.speed_kmh and ship.speed_kmh): no binding.
    expect(yes({ wind: { speed_kmh: 3 }, ship: { speed_kmh: 30 } }, 'Is the speed above 10 km/h?')).toBeUndefined();
  });

  it('compares two fields', () => {
    expect(yes(order, 'Does `wind.gust_kmh` reach `advisory.gale_gust_kmh`?')).toBe(true);
    expect(yes(order, 'Is `billing.country` the same as `shipping.country`?')).toBe(true);
    expect(yes(order, 'Did `delivered` come after `ordered`?')).toBe(true);
    expect(yes(order, 'Was `delivered` within 14 days of `ordered`?')).toBe(true);
    expect(yes(order, 'Was `delivered` within 1 week of `ordered`?')).toBe(false);
  });

  it('checks dates, weekdays and months', () => {
    expect(yes(order, 'Is `delivered` before 2025-03-10?')).toBe(false);
    expect(yes(order, 'Is `ordered` on or after 1 March 2025?')).toBe(true);
    expect(yes(order, 'Was `ordered` a Saturday?')).toBe(true);
    expect(yes(order, 'Did `ordered` fall on a weekend?')).toBe(true);
    expect(yes(order, 'Is `delivered` in March?')).toBe(true);
  });

  it('checks booleans, strings and empty fields', () => {
    expect(yes(order, 'Is `gift` true?')).toBe(false);
    expect(yes(order, 'Is `notes` empty?')).toBe(true);
    expect(yes(order, 'Is `items[1].category` equal to "Garden"?')).toBe(true);
    expect(yes(order, '`items[0].category` is "garden".')).toBe(false);
    expect(yes({ env: 'Staging' }, 'Is `env` set to staging?')).toBe(true);
    expect(yes(order, 'Is `coupon` missing?')).toBe(true);
    expect(yes(order, 'Is `gift` missing?')).toBe(false);
    // A bare word after the field may describe rather than name a value: left to the model.
    expect(yes({ plan: 'pro' }, 'Is `plan` premium?')).toBeUndefined();
  });

  it('counts, quantifies and aggregates over lists', () => {
    expect(yes(order, 'Does any element of `items` have `price` greater than 200?')).toBe(true);
    expect(yes(order, 'Do all entries of `items` have `qty` less than 5?')).toBe(false);
    expect(yes(order, 'Is it true that no entry of `items` has `price` less than 1?')).toBe(true);
    expect(yes(order, 'Are there at least three products in `items`?')).toBe(true);
    expect(yes(order, 'Answer yes if `sum(items[].qty)` is more than 7.')).toBe(true);
    expect(yes(order, 'Is `mean(items[].price)` under 80?')).toBe(false);
    expect(yes(order, '`median(items[].qty)` = 2')).toBe(true);
    expect(yes({ start: '2025-01-31', end: '2025-03-01' }, 'Was `end` within 1 month of `start`?')).toBe(false);
    expect(yes({ start: '2025-01-31', end: '2025-02-28' }, 'Was `end` within 1 month of `start`?')).toBe(true);
  });

  it('binds a text state\'s number only by its label and unit', () => {
    const text = 'Account statement. Opening balance 1 Aug: $612.40. Withdrawals: rent $1,700.00, utilities $143.25.';
    expect(yes(text, 'Is the opening balance above $600?')).toBe(true);
    expect(yes(text, 'Is the utilities payment under $100?')).toBeUndefined();
    expect(yes(text, 'Is the rent more than $2,000?')).toBe(false);
    expect(yes('Incident review. Total customer impact: 46 minutes.', 'Customer impact lasted longer than 45 minutes.')).toBe(true);
    // A unitless question number never binds in text.
    expect(yes('Sixty of our users are affected.', 'Does the account have more than 50 user seats?')).toBeUndefined();
    // Two different values under the same label: abstain.
    expect(yes('The total was $500, later corrected: the total is $450.', 'Is the total above $480?')).toBeUndefined();
  });

  it('counts a noun in a text state only in a sentence with the question\'s other words', () => {
    expect(yes('We asked four suppliers. Three quotes were received by Friday.', 'Were more than two quotes received?')).toBe(true);
    expect(yes('We received 3 quotes.', 'Were at least 5 quotes received?')).toBe(false);
    // The sentence with the count does not say "received".
    expect(yes('Three quotes were rejected. Others are pending.', 'Were more than two quotes received?')).toBeUndefined();
    // Two different counts, a total over mentions, or a JSON state: abstain.
    expect(yes('We received 3 quotes on Monday and 2 quotes on Tuesday.', 'Were more than two quotes received?')).toBeUndefined();
    expect(yes('We received 3 quotes.', 'Were more than two quotes received in total?')).toBeUndefined();
    expect(yes({ quotes: 3 }, 'Were more than two quotes received?')).toBeUndefined();
  });

  it('abstains on negations, arithmetic, hypotheticals and unknown references', () => {
    expect(yes(order, 'Is `total_eur` not above 100?')).toBeUndefined();
    expect(yes(order, 'Does `total_eur` exceed `wind.speed_kmh` plus 5?')).toBeUndefined();
    expect(yes(order, 'If the coupon applied, would `total_eur` be under 1,000?')).toBeUndefined();
    expect(yes(order, 'Is `grand_total` above 5?')).toBeUndefined();
    expect(yes(order, 'Is the customer happy?')).toBeUndefined();
  });

  it('honours noul criteria and structured instructions by abstaining when they may change the meaning', () => {
    expect(yes(order, noul('Is `total_eur` above 1,000?', { true: 'the order needs approval', false: null }))).toBeUndefined();
    expect(yes(order, noul({ question: 'Is `total_eur` above `limit`?', limit: 1000 }))).toBe(true);
    expect(yes(order, noul({ question: 'Is `total_eur` above `limit`?', limit: 1000, rule: 'Totals include VAT.' }))).toBeUndefined();
  });

  it('answers with the calibrated probability, and explains itself', () => {
    const answer = exactAnswer(order, noul('Is `total_eur` below 100?')).answer;
    expect(answer).toEqual({ type: 'noul', noul: 1 - EXACT_PROBABILITY });
    const why = explainExact(order, noul('Is `total_eur` below 100?'));
    expect(why).toMatchObject({ answered: true, query: { kind: 'compare', cmp: 'lt' }, result: false });
    expect(why.bound[0]).toMatchObject({ from: '`total_eur`', value: { kind: 'number', q: { value: 1250, dim: 'money:EUR' } } });
    expect(explainExact(order, noul('Is the customer happy?'))).toMatchObject({ answered: false, reason: expect.any(String) });
  });
});

describe('choice options and score levels that state ranges', () => {
  const state = {
    tasks: [
      { id: 1, hours: { estimate: 4 } },
      { id: 2, hours: { estimate: 16 } },
      { id: 3, hours: { estimate: 6 } },
    ],
    readings: [{ battery_pct: 70 }, { battery_pct: 80 }],
  };

  it('answers a count bucket exactly', () => {
    const q: Question = { type: 'score', instructions: 'How many entries in `tasks` have `hours.estimate` less than 8?', criteria: ['none', 'one', 'two', 'three', 'four or more'] };
    const a = exactAnswer(state, q).answer!;
    expect(picked(a)).toBe('2');
    expect(a.type === 'score' && a.probabilities['2']).toBe(EXACT_PROBABILITY);
  });

  it('answers a mean bucket with percent ranges, and a choice by its option names', () => {
    const score: Question = { type: 'score', instructions: 'Mean of `readings[].battery_pct`:', criteria: ['below 72%', '72% to under 76%', '76% to under 80%', '80% or more'] };
    // The mean of 70% and 80% is 75%.
    expect(picked(exactAnswer(state, score).answer)).toBe('1');
    const choice: Question = { type: 'choice', instructions: 'How many entries in `tasks` have `hours.estimate` greater than 5?', criteria: { '0': null, '1-2': null, '3 or more': null } };
    expect(picked(exactAnswer(state, choice).answer)).toBe('1-2');
    const share: Question = { type: 'score', instructions: 'What share of the items in `tasks` have `hours.estimate` above 5?', criteria: ['under 50%', '50% or more'] };
    expect(picked(exactAnswer(state, share).answer)).toBe('1');
  });

  it('abstains when ranges overlap, leave gaps, or an option is no range', () => {
    const overlap: Question = { type: 'choice', instructions: 'How many entries in `tasks` are there?', criteria: { '1-3': null, '3-5': null } };
    expect(exactAnswer(state, overlap).answer).toBeUndefined();
    const word: Question = { type: 'choice', instructions: 'How many entries in `tasks` are there?', criteria: { few: null, many: null } };
    expect(exactAnswer(state, word).answer).toBeUndefined();
    const gap: Question = { type: 'score', instructions: 'Mean of `readings[].battery_pct`:', criteria: ['under 70%', '80% or more'] };
    expect(exactAnswer(state, gap).answer).toBeUndefined();
  });
});
