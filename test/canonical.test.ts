import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  findQuestionField,
  flattenWhitespace,
  renderQuestion,
  renderState,
  sanitizeText,
} from '../src/canonical/index.js';
import type { Content, JsonObject, JsonValue, Question, State } from '../src/types.js';

describe('renderState', () => {
  it('keeps a string state as is', () => {
    expect(renderState('The council voted 7-2 on Tuesday.\nThe plan passed.')).toMatchInlineSnapshot(`
      "The council voted 7-2 on Tuesday.
      The plan passed."
    `);
  });

  it('renders an object as labelled lines, nested objects as dotted paths', () => {
    const state: State = {
      claim_id: 'AC-55821',
      policy: {
        type: 'auto',
        coverage: ['liability', 'collision'],
        collision_deductible: 500,
        listed_drivers: ['Dana Ruiz', 'Mark Ruiz'],
      },
      incident: { date: '2024-09-02', police_report: false, witness: null },
      notes: [],
      meta: {},
    };
    expect(renderState(state)).toMatchInlineSnapshot(`
      "claim_id: AC-55821
      policy.type: auto
      policy.coverage: liability, collision
      policy.collision_deductible: 500
      policy.listed_drivers: Dana Ruiz, Mark Ruiz
      incident.date: 2024-09-02
      incident.police_report: false
      incident.witness: null
      notes: (empty)
      meta: (empty)"
    `);
  });

  it('keeps the caller key order, not alphabetical order', () => {
    expect(renderState({ zeta: 1, alpha: 2, mid: { z: 1, a: 2 } })).toMatchInlineSnapshot(`
      "zeta: 1
      alpha: 2
      mid.z: 1
      mid.a: 2"
    `);
  });

  it('renders an array of text items one per line', () => {
    expect(renderState(['first message', 'second, longer message', 'third'])).toMatchInlineSnapshot(`
      "- first message
      - second, longer message
      - third"
    `);
  });

  it('renders an array of objects as YAML-like items', () => {
    const state: State = [
      { role: 'user', text: 'I was charged twice, $4.75 both times' },
      { role: 'bot', text: 'Is the second charge still pending?' },
    ];
    expect(renderState(state)).toMatchInlineSnapshot(`
      "- role: user
        text: I was charged twice, $4.75 both times
      - role: bot
        text: Is the second charge still pending?"
    `);
  });

  it('lists long or comma-bearing array items under the label, and hangs multi-line strings', () => {
    const state: State = {
      checklist: ['driver is listed on the policy', 'incident within policy term'],
      partners: ['Ireland, Italy', 'Japan'],
      body: 'line one\nline two\n\nline four',
      matrix: [
        [1, 2],
        ['a sentence with many words in it', 'x'],
        [{ k: 'v', w: [] }],
      ],
    };
    expect(renderState(state)).toMatchInlineSnapshot(`
      "checklist:
        - driver is listed on the policy
        - incident within policy term
      partners:
        - Ireland, Italy
        - Japan
      body: line one
        line two

        line four
      matrix:
        - 1, 2
        - - a sentence with many words in it
          - x
        - - k: v
            w: (empty)"
    `);
  });

  it('renders empty states as empty text', () => {
    expect(renderState('')).toBe('');
    expect(renderState({})).toBe('');
    expect(renderState([])).toBe('');
  });

  it('elides nesting beyond the render depth instead of overflowing the stack', () => {
    let deep: JsonValue = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = { n: deep };
    const text = renderState(deep as JsonObject);
    expect(text.startsWith('n.n.n.')).toBe(true);
    expect(text.endsWith(': ...')).toBe(true);
    let deepArray: JsonValue = 'bottom';
    for (let i = 0; i < 10_000; i++) deepArray = [deepArray, 'x'];
    expect(() => renderState(deepArray as JsonValue[])).not.toThrow();
  });

  it('elides a cycle in a value built in code', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    cyclic.list = [cyclic];
    expect(renderState(cyclic as JsonObject)).toMatchInlineSnapshot(`
      "name: loop
      self: ...
      list:
        - ..."
    `);
  });
});

describe('sanitising', () => {
  it('neutralises reserved tokenizer pieces and the word marker', () => {
    expect(
      sanitizeText('<s>Hi</s> extra_token_id_1 and extra_token_id_42 a\u2581b ＜ｓ＞'),
    ).toMatchInlineSnapshot(`"<s >Hi</s > extra token id 1 and extra token id 42 a b <s >"`);
  });

  it('strips control characters, normalises line endings and collapses spaces', () => {
    expect(sanitizeText('a\u0000b\u0007c\r\nd\re\u2028f\tg    h\u00a0\u00a0i\u001b[0m')).toMatchInlineSnapshot(`
      "abc
      d
      e
      f	g h i[0m"
    `);
  });

  it('does not otherwise change the text', () => {
    expect(sanitizeText('Keep CASE, punctuation!? and “quotes” — 漢字 😀')).toBe(
      'Keep CASE, punctuation!? and “quotes” — 漢字 😀',
    );
  });

  it('sanitises state values and keys alike', () => {
    expect(renderState({ 'key\nwith <s> break': 'value </s>\u0000 here', list: ['extra_token_id_2'] }))
      .toMatchInlineSnapshot(`
        "key with <s > break: value </s > here
        list: extra token id 2"
      `);
  });

  it('flattens whitespace for the encoder on request', () => {
    expect(flattenWhitespace(' a:\n  b\t c \n')).toBe('a: b c');
  });
});

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

const text = fc.string({ unit: 'binary', maxLength: 40 });
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const content: fc.Arbitrary<Content> = fc.oneof(
  text,
  fc.dictionary(text, json, { maxKeys: 5 }) as fc.Arbitrary<JsonObject>,
  fc.array(json, { maxLength: 5 }),
);
const optionalContent = fc.option(content, { nil: null });
const referencingText = fc
  .tuple(text, fc.constantFrom('policy', 'rule', 'missing', 'limits.amount'), text)
  .map(([a, name, b]) => `${a}\`${name}\`${b}`);
const structured: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.record({ question: referencingText, policy: text, limits: fc.record({ amount: fc.integer() }) }),
  fc.record({ rule: referencingText, text: fc.option(text, { nil: null }), data: json }),
  fc.dictionary(text, json, { maxKeys: 6 }) as fc.Arbitrary<JsonObject>,
);
const instructions = fc.option(fc.oneof(content, structured), { nil: undefined }).chain((value) =>
  fc.constantFrom(value, null),
);

const question: fc.Arbitrary<Question> = fc.oneof(
  fc.record(
    {
      type: fc.constant('noul' as const),
      instructions,
      criteria: fc.option(
        fc.record({ true: optionalContent, false: optionalContent }, { requiredKeys: [] }),
        { nil: null },
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('choice' as const),
      instructions,
      criteria: fc.dictionary(text, optionalContent, { minKeys: 1, maxKeys: 8 }),
    },
    { requiredKeys: ['type', 'criteria'] },
  ),
  fc.record(
    {
      type: fc.constant('score' as const),
      instructions,
      criteria: fc.array(content, { minLength: 1, maxLength: 10 }),
    },
    { requiredKeys: ['type', 'criteria'] },
  ),
);
const state: fc.Arbitrary<State> = fc.oneof(
  text,
  fc.dictionary(text, json, { maxKeys: 8 }) as fc.Arbitrary<JsonObject>,
  fc.array(json, { maxLength: 8 }),
);

function criteriaCount(q: Question): number {
  switch (q.type) {
    case 'noul':
      return 2;
    case 'choice':
      return Object.keys(q.criteria).length;
    case 'score':
      return q.criteria.length;
  }
}

/** Pieces the canonical form must never contain, whatever the input. */
const FORBIDDEN = /<s>|<\/s>|extra_token_id_\d|\u2581|[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/;

describe('properties', () => {
  it('renders a question deterministically, and a deep copy the same way', () => {
    fc.assert(
      fc.property(question, (q) => {
        const first = renderQuestion(q);
        expect(renderQuestion(q)).toEqual(first);
        expect(renderQuestion(structuredClone(q))).toEqual(first);
      }),
      { numRuns: 500 },
    );
  });

  it('renders a state deterministically', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(renderState(structuredClone(s))).toBe(renderState(s));
      }),
      { numRuns: 500 },
    );
  });

  it('gives one key and one outcome per criterion, keys in answer order', () => {
    fc.assert(
      fc.property(question, (q) => {
        const rendered = renderQuestion(q);
        expect(rendered.type).toBe(q.type);
        expect(rendered.keys).toHaveLength(criteriaCount(q));
        expect(rendered.outcomes).toHaveLength(rendered.keys.length);
        if (q.type === 'noul') expect(rendered.keys).toEqual(['true', 'false']);
        if (q.type === 'choice') expect(rendered.keys).toEqual(Object.keys(q.criteria));
        if (q.type === 'score') expect(rendered.keys).toEqual(q.criteria.map((_, i) => String(i)));
        for (const outcome of rendered.outcomes) expect(outcome.startsWith(rendered.instructions)).toBe(true);
        expect(rendered.text.startsWith(rendered.instructions)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never emits reserved pieces or control characters', () => {
    fc.assert(
      fc.property(state, question, (s, q) => {
        const rendered = renderQuestion(q);
        for (const out of [renderState(s), rendered.text, rendered.instructions, ...rendered.outcomes]) {
          expect(out).not.toMatch(FORBIDDEN);
          expect(out).not.toContain('\r');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('sanitising is a fixed point', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const once = sanitizeText(s);
        expect(sanitizeText(once)).toBe(once);
        expect(once).not.toMatch(FORBIDDEN);
        expect(once).not.toMatch(/ {2}/);
      }),
      { numRuns: 2000 },
    );
  });

  it('sanitising catches reserved pieces hidden among noise', () => {
    const noisy = fc
      .array(fc.constantFrom('<', 's', '>', '/', ' ', '\u2581', '\u0000', 'extra_token_id_', '1', '\uff1c', '\uff53', '\uff1e'), {
        maxLength: 30,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(noisy, (s) => {
        const once = sanitizeText(s);
        expect(once).not.toMatch(FORBIDDEN);
        expect(sanitizeText(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });
});
