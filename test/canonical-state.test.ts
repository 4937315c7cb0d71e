import { describe, expect, it } from 'vitest';
import { flattenWhitespace, renderState, sanitizeText } from '../src/canonical/index.js';
import type { JsonObject, JsonValue, State } from '../src/types.js';

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
