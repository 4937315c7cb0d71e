import { describe, expect, it } from 'vitest';
import { findQuestionField, renderQuestion } from '../src/canonical/index.js';
import type { Question } from '../src/types.js';

describe('renderQuestion', () => {
  it('renders a noul question with criteria', () => {
    expect(
      renderQuestion({
        type: 'noul',
        instructions: 'Did aspirin significantly reduce adenoma recurrence?',
        criteria: {
          true: 'the reported confidence interval excludes no effect (RR of 1)',
          false: 'the confidence interval includes 1',
        },
      }),
    ).toMatchInlineSnapshot(`
      {
        "instructions": "Did aspirin significantly reduce adenoma recurrence?",
        "keys": [
          "true",
          "false",
        ],
        "outcomes": [
          "Did aspirin significantly reduce adenoma recurrence? Yes: the reported confidence interval excludes no effect (RR of 1)",
          "Did aspirin significantly reduce adenoma recurrence? No: the confidence interval includes 1",
        ],
        "text": "Did aspirin significantly reduce adenoma recurrence?
      Yes: the reported confidence interval excludes no effect (RR of 1)
      No: the confidence interval includes 1",
        "type": "noul",
      }
    `);
  });

  it('renders a noul question without criteria as bare Yes./No. outcomes', () => {
    expect(renderQuestion({ type: 'noul', instructions: 'The customer is asking for a refund.' }))
      .toMatchInlineSnapshot(`
        {
          "instructions": "The customer is asking for a refund.",
          "keys": [
            "true",
            "false",
          ],
          "outcomes": [
            "The customer is asking for a refund. Yes.",
            "The customer is asking for a refund. No.",
          ],
          "text": "The customer is asking for a refund.",
          "type": "noul",
        }
      `);
    expect(renderQuestion({ type: 'noul', instructions: 'Is it late?', criteria: { true: 'after noon', false: null } }))
      .toMatchInlineSnapshot(`
        {
          "instructions": "Is it late?",
          "keys": [
            "true",
            "false",
          ],
          "outcomes": [
            "Is it late? Yes: after noon",
            "Is it late? No.",
          ],
          "text": "Is it late?
        Yes: after noon",
          "type": "noul",
        }
      `);
  });

  it('renders a choice question, null descriptions by the option name alone', () => {
    expect(
      renderQuestion({
        type: 'choice',
        instructions: 'Pick the return reason code.',
        criteria: {
          defective: 'item does not work',
          damaged_in_transit: null,
          changed_mind: 'customer no longer wants a working, correct item',
        },
      }),
    ).toMatchInlineSnapshot(`
      {
        "instructions": "Pick the return reason code.",
        "keys": [
          "defective",
          "damaged_in_transit",
          "changed_mind",
        ],
        "outcomes": [
          "Pick the return reason code. Answer: defective: item does not work",
          "Pick the return reason code. Answer: damaged_in_transit",
          "Pick the return reason code. Answer: changed_mind: customer no longer wants a working, correct item",
        ],
        "text": "Pick the return reason code.
      - defective: item does not work
      - damaged_in_transit
      - changed_mind: customer no longer wants a working, correct item",
        "type": "choice",
      }
    `);
  });

  it('renders a score question with zero-based levels', () => {
    expect(
      renderQuestion({
        type: 'score',
        instructions: 'How contested is the measure?',
        criteria: ['No disagreement', 'Named opponents', 'A formal challenge is under way'],
      }),
    ).toMatchInlineSnapshot(`
      {
        "instructions": "How contested is the measure?",
        "keys": [
          "0",
          "1",
          "2",
        ],
        "outcomes": [
          "How contested is the measure? Level 0 of 2: No disagreement",
          "How contested is the measure? Level 1 of 2: Named opponents",
          "How contested is the measure? Level 2 of 2: A formal challenge is under way",
        ],
        "text": "How contested is the measure?
      Level 0 of 2: No disagreement
      Level 1 of 2: Named opponents
      Level 2 of 2: A formal challenge is under way",
        "type": "score",
      }
    `);
  });

  it('renders object and array descriptions as indented blocks', () => {
    expect(
      renderQuestion({
        type: 'choice',
        instructions: 'Route the ticket.',
        criteria: {
          billing: { covers: ['refunds', 'invoices'], excludes: 'fraud reports, which go to security' },
          security: ['account takeover', 'fraud reports, chargebacks'],
          other: [],
        },
      }),
    ).toMatchInlineSnapshot(`
      {
        "instructions": "Route the ticket.",
        "keys": [
          "billing",
          "security",
          "other",
        ],
        "outcomes": [
          "Route the ticket. Answer: billing:
        covers: refunds, invoices
        excludes: fraud reports, which go to security",
          "Route the ticket. Answer: security:
        - account takeover
        - fraud reports, chargebacks",
          "Route the ticket. Answer: other: (empty)",
        ],
        "text": "Route the ticket.
      - billing:
        covers: refunds, invoices
        excludes: fraud reports, which go to security
      - security:
        - account takeover
        - fraud reports, chargebacks
      - other: (empty)",
        "type": "choice",
      }
    `);
  });

  it('renders structured instructions: question first, data labelled, references resolved', () => {
    const question: Question = {
      type: 'noul',
      instructions: {
        question: 'Evaluate the claim against `reporting_rule`.',
        reporting_rule: 'Incidents must be reported within 14 days of the incident date.',
      },
      criteria: {
        true: 'the gap exceeds the limit in `reporting_rule`',
        false: 'the claim was reported within the limit',
      },
    };
    expect(renderQuestion(question)).toMatchInlineSnapshot(`
      {
        "instructions": "Evaluate the claim against reporting_rule.
      reporting_rule: Incidents must be reported within 14 days of the incident date.",
        "keys": [
          "true",
          "false",
        ],
        "outcomes": [
          "Evaluate the claim against reporting_rule.
      reporting_rule: Incidents must be reported within 14 days of the incident date.
      Yes: the gap exceeds the limit in reporting_rule",
          "Evaluate the claim against reporting_rule.
      reporting_rule: Incidents must be reported within 14 days of the incident date.
      No: the claim was reported within the limit",
        ],
        "text": "Evaluate the claim against reporting_rule.
      reporting_rule: Incidents must be reported within 14 days of the incident date.
      Yes: the gap exceeds the limit in reporting_rule
      No: the claim was reported within the limit",
        "type": "noul",
      }
    `);
  });

  it('keeps references to missing fields verbatim', () => {
    expect(
      renderQuestion({
        type: 'noul',
        instructions: {
          question: 'Is `claimed_total` consistent with `calc_rule`?',
          calc_rule: 'Claimed total must equal miles times the rate, plus tolls.',
        },
      }).instructions,
    ).toMatchInlineSnapshot(`
      "Is \`claimed_total\` consistent with calc_rule?
      calc_rule: Claimed total must equal miles times the rate, plus tolls."
    `);
  });

  it('finds the question field whatever its name and position', () => {
    const score: Question = {
      type: 'score',
      instructions: {
        checklist: ['driver is listed on the policy', 'reported within 14 days', 'police report filed'],
        ask: 'How many items in `checklist` does the claim file satisfy?',
        limits: { days: 14, 'max.amount': 5000 },
      },
      criteria: ['none', 'one', 'two', 'all three'],
    };
    expect(renderQuestion(score)).toMatchInlineSnapshot(`
      {
        "instructions": "How many items in checklist does the claim file satisfy?
      checklist:
        - driver is listed on the policy
        - reported within 14 days
        - police report filed
      limits.days: 14
      limits.max.amount: 5000",
        "keys": [
          "0",
          "1",
          "2",
          "3",
        ],
        "outcomes": [
          "How many items in checklist does the claim file satisfy?
      checklist:
        - driver is listed on the policy
        - reported within 14 days
        - police report filed
      limits.days: 14
      limits.max.amount: 5000
      Level 0 of 3: none",
          "How many items in checklist does the claim file satisfy?
      checklist:
        - driver is listed on the policy
        - reported within 14 days
        - police report filed
      limits.days: 14
      limits.max.amount: 5000
      Level 1 of 3: one",
          "How many items in checklist does the claim file satisfy?
      checklist:
        - driver is listed on the policy
        - reported within 14 days
        - police report filed
      limits.days: 14
      limits.max.amount: 5000
      Level 2 of 3: two",
          "How many items in checklist does the claim file satisfy?
      checklist:
        - driver is listed on the policy
        - reported within 14 days
        - police report filed
      limits.days: 14
      limits.max.amount: 5000
      Level 3 of 3: all three",
        ],
        "text": "How many items in checklist does the claim file satisfy?
      checklist:
        - driver is listed on the policy
        - reported within 14 days
        - police report filed
      limits.days: 14
      limits.max.amount: 5000
      Level 0 of 3: none
      Level 1 of 3: one
      Level 2 of 3: two
      Level 3 of 3: all three",
        "type": "score",
      }
    `);
  });

  it('resolves dotted references into nested data', () => {
    expect(
      renderQuestion({
        type: 'noul',
        instructions: { q: 'Is the amount under `limits.amount`?', limits: { amount: 5000 } },
      }).instructions,
    ).toMatchInlineSnapshot(`
      "Is the amount under limits.amount?
      limits.amount: 5000"
    `);
  });

  it('picks the root of the references when data cites other data', () => {
    expect(
      findQuestionField({
        rule: 'Refunds within 30 days, unless `exception` applies.',
        exception: 'Store credit up to 37 days.',
        check: 'Does the request satisfy `rule`?',
      }),
    ).toBe('check');
    expect(findQuestionField({ policy: 'Thirty days.', prompt: 'Within the window?' })).toBe('prompt');
    expect(findQuestionField({ a: 'short?', b: 'Is this the longest one?', c: 'not a question' })).toBe('b');
    expect(findQuestionField({ a: 'first', b: 'second' })).toBe('a');
    expect(findQuestionField({ a: 1, b: [1] })).toBeUndefined();
  });

  it('renders array, null and absent instructions', () => {
    expect(
      renderQuestion({ type: 'noul', instructions: ['Is the order late?', 'Consider the promised date.'] }).text,
    ).toMatchInlineSnapshot(`
      "- Is the order late?
      - Consider the promised date."
    `);
    const bare = renderQuestion({ type: 'choice', instructions: null, criteria: { yes: null, no: 'not at all' } });
    expect(bare).toMatchInlineSnapshot(`
      {
        "instructions": "",
        "keys": [
          "yes",
          "no",
        ],
        "outcomes": [
          "Answer: yes",
          "Answer: no: not at all",
        ],
        "text": "- yes
      - no: not at all",
        "type": "choice",
      }
    `);
    expect(renderQuestion({ type: 'score', criteria: ['low', 'high'] }).outcomes).toEqual([
      'Level 0 of 1: low',
      'Level 1 of 1: high',
    ]);
  });

  it('keeps raw option names as keys while sanitising their rendering', () => {
    const rendered = renderQuestion({ type: 'choice', instructions: 'Pick.', criteria: { '<s>a\u2581b': null } });
    expect(rendered.keys).toEqual(['<s>a\u2581b']);
    expect(rendered.outcomes).toEqual(['Pick. Answer: <s >a b']);
  });

  it('rejects an unknown question type', () => {
    expect(() => renderQuestion({ type: 'open', instructions: 'x' } as unknown as Question)).toThrow(TypeError);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
