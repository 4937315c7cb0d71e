/**
 * The playground's criteria field (site/playground/criteria.ts): choice descriptions, noul
 * criteria, score levels; comma-separated on one line, one entry a line otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choiceCriteria, entries, noulCriteria, scoreCriteria } from '../site/playground/criteria.js';

describe('playground criteria field', () => {
  it('reads choice options by name alone, or with a description after ": "', () => {
    expect(choiceCriteria('shipping, billing')).toEqual({ shipping: null, billing: null });
    expect(choiceCriteria('shipping: delivery delays, billing')).toEqual({ shipping: 'delivery delays', billing: null });
    expect(choiceCriteria('shipping: delays, damaged parcels\nbilling: payments, refunds\n\n')).toEqual({
      shipping: 'delays, damaged parcels',
      billing: 'payments, refunds',
    });
    // A colon without a space is part of the name (times, URLs).
    expect(choiceCriteria('9:30, 10:00')).toEqual({ '9:30': null, '10:00': null });
  });

  it('reads noul criteria as true/false descriptions, and nothing when empty', () => {
    expect(noulCriteria('')).toBeUndefined();
    expect(noulCriteria('  ')).toBeUndefined();
    expect(noulCriteria('true: asks for money back, false: no refund wanted')).toEqual({ true: 'asks for money back', false: 'no refund wanted' });
    expect(noulCriteria('false: no time pressure')).toEqual({ false: 'no time pressure' });
    // Other names go to the engine as written, whose validation reports them.
    expect(noulCriteria('maybe: unsure')).toEqual({ maybe: 'unsure' });
  });

  it('keeps score levels whole, in order', () => {
    expect(scoreCriteria('calm, annoyed, furious')).toEqual(['calm', 'annoyed', 'furious']);
    expect(scoreCriteria('calm: no complaint\nangry, loud')).toEqual(['calm: no complaint', 'angry, loud']);
  });

  it('splits one line at commas and several lines at line ends, dropping blanks', () => {
    const item = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !/[,\r\n]/.test(s));
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 8 }), (items) => {
        const trimmed = items.map((s) => s.trim());
        expect(entries(items.join(', '))).toEqual(trimmed);
        if (items.length > 1) expect(entries(items.join('\n'))).toEqual(trimmed);
      }),
    );
  });
});
