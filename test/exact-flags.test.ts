/**
 * The exact stage on yes/no questions that name a boolean field of a JSON state by its plain
 * words ("Has the invoice been paid?"): the answer is the field's value, and every reading that
 * is not certain abstains (src/exact/flags.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXACT_PROBABILITY, exactAnswer, explainExact } from '../src/exact/index.js';
import type { State } from '../src/types.js';
import { noul, yes } from './exact-helpers.js';

/** The answer for the field set to true and to false: [yes, no] when it follows the value. */
function both(state: (v: boolean) => State, question: string): [boolean | undefined, boolean | undefined] {
  return [yes(state(true), question), yes(state(false), question)];
}

describe('yes/no questions naming a boolean field by its words', () => {
  it('answers the issue\'s examples with the field\'s value', () => {
    expect(both((v) => ({ invoice: 'INV-8', paid: v, amount: 120 }), 'Has the invoice been paid?')).toEqual([true, false]);
    expect(both((v) => ({ user: 'ana', verified: v }), 'Is the user verified?')).toEqual([true, false]);
    expect(both((v) => ({ active: v }), 'Is the account active?')).toEqual([true, false]);
    expect(both((v) => ({ order: 7, shipped: v }), 'Was the order shipped?')).toEqual([true, false]);
    expect(both((v) => ({ vip: v }), 'Is the customer a VIP?')).toEqual([true, false]);
    expect(both((v) => ({ has_overdue_invoice: v }), 'Does the customer have an overdue invoice?')).toEqual([true, false]);
  });

  it('reads questions, statements and the stage\'s framings', () => {
    const invoice = (v: boolean) => ({ invoice: 'INV-8', paid: v });
    for (const q of [
      'Is the invoice paid?',
      'Was the invoice paid?',
      'Has the invoice been paid?',
      'Is it true that the invoice has been paid?',
      'True or false: the invoice was paid.',
      'The invoice has been paid.',
      'Statement to check: the invoice is paid.',
      'Has the invoice been paid, correct?',
      'Is the invoice marked as paid?',
      'Answer yes if the invoice has been paid.',
    ]) expect(both(invoice, q), q).toEqual([true, false]);
    expect(both((v) => ({ customer: 'ana', has_overdue_invoice: v }), 'The customer has an overdue invoice.')).toEqual([true, false]);
    // "did" with a verb's base form names its past form: pay/paid, ship/shipped.
    expect(both((v) => ({ customer: 'ana', paid: v }), 'Did the customer pay?')).toEqual([true, false]);
    expect(both((v) => ({ customer: 'ana', paid: v }), 'Has the customer paid?')).toEqual([true, false]);
    expect(both((v) => ({ order: 7, shipped: v }), 'Did the order ship?')).toEqual([true, false]);
    expect(both((v) => ({ order: 7, cancelled: v }), 'Was the order canceled?')).toEqual([true, false]);
  });

  it('reads snake_case, camelCase, PascalCase and spaced names, with their is_/has_ prefixes', () => {
    for (const key of ['is_paid', 'isPaid', 'IsPaid', 'is paid', 'paid']) {
      expect(both((v) => ({ invoice_id: 'INV-8', [key]: v }), 'Has the invoice been paid?'), key).toEqual([true, false]);
    }
    for (const key of ['email_verified', 'emailVerified', 'EmailVerified', 'email verified']) {
      expect(both((v) => ({ user: 'ana', [key]: v }), 'Is the user\'s email verified?'), key).toEqual([true, false]);
      expect(both((v) => ({ user: 'ana', [key]: v }), 'Is the email verified?'), key).toEqual([true, false]);
    }
    expect(both((v) => ({ customer: 'ana', hasOverdueInvoice: v }), 'Does the customer have an overdue invoice?')).toEqual([true, false]);
    expect(both((v) => ({ sku: 'L-1', item: 'lamp', in_stock: v }), 'Is the lamp in stock?')).toEqual([undefined, undefined]);
    expect(both((v) => ({ item: 'lamp', in_stock: v }), 'Is the item in stock?')).toEqual([true, false]);
  });

  it('binds a nested field when the question names its parent', () => {
    expect(both((v) => ({ invoice: { id: 'INV-8', paid: v } }), 'Has the invoice been paid?')).toEqual([true, false]);
    expect(both((v) => ({ order: { id: 7, payment: { paid: v, amount: 40 } } }), 'Has the payment been paid?')).toEqual([true, false]);
    expect(both((v) => ({ order: { id: 7, payment: { received: v } } }), 'Was the order\'s payment received?')).toEqual([true, false]);
    expect(both((v) => ({ order: 7, refund: { approved: v } }), 'Was the refund approved?')).toEqual([true, false]);
    // A wrapper (`data`, `info`, `details`) is no record of its own: the record is the object it holds.
    const api = (v: boolean) => ({ status: 200, data: { user_id: 5521, username: 'kite_runner', email_verified: v, plan: 'free' } });
    expect(both(api, 'Is the email verified?')).toEqual([true, false]);
    expect(both(api, 'Is the user\'s email verified?')).toEqual([true, false]);
    expect(both((v) => ({ order: { payment_info: { received: v } } }), 'Has the payment been received?')).toEqual([true, false]);
    // "the order" is not the refund: approving a refund is not approving the order.
    expect(both((v) => ({ order: 7, refund: { approved: v } }), 'Was the order approved?')).toEqual([undefined, undefined]);
    expect(both((v) => ({ order: { refund: { approved: v } } }), 'Was the order approved?')).toEqual([undefined, undefined]);
  });

  it('explains what it bound and answers with the stage\'s probability', () => {
    const why = explainExact({ invoice: 'INV-8', paid: false }, noul('Has the invoice been paid?'));
    expect(why).toMatchObject({ answered: true, query: { kind: 'flag', words: ['invoice', 'paid'] }, result: false });
    expect(why.bound).toEqual([{ from: '"invoice paid" -> `paid`', value: { kind: 'boolean', b: false } }]);
    expect(exactAnswer({ invoice: 'INV-8', paid: true }, noul('Has the invoice been paid?')).answer).toEqual({ type: 'noul', noul: EXACT_PROBABILITY });
    expect(explainExact({ invoice: 'INV-8', paid: 'yes' }, noul('Has the invoice been paid?'))).toMatchObject({ answered: false, reason: '`paid` is not a boolean' });
  });
});

describe('when the reading is not certain it abstains', () => {
  const invoice = { invoice: 'INV-8', paid: true, amount: 120 };

  it('on negations and negative prefixes', () => {
    for (const q of [
      'Has the invoice not been paid?',
      'Hasn\'t the invoice been paid?',
      'Isn\'t the invoice paid?',
      'Was the invoice never paid?',
      'Is the invoice unpaid?',
      'Is the invoice un-paid?',
      'Is the invoice non-paid?',
      'Is it true that the invoice is not paid?',
      'Has no one paid the invoice?',
    ]) expect(yes(invoice, q), q).toBeUndefined();
    expect(yes({ user: 'ana', verified: true }, 'Is the user unverified?')).toBeUndefined();
    expect(yes({ active: true }, 'Is the account inactive?')).toBeUndefined();
    expect(yes({ enabled: true }, 'Is the account disabled?')).toBeUndefined();
    expect(yes({ account: 'A-1', activated: true }, 'Was the account deactivated?')).toBeUndefined();
  });

  it('when the words name more than one boolean field, or the same name twice', () => {
    const order = { order: 7, paid: true, shipped: false };
    expect(yes(order, 'Was the order paid and shipped?')).toBeUndefined();
    expect(yes(order, 'Was the order paid or shipped?')).toBeUndefined();
    expect(yes(order, 'Has the shipped order been paid?')).toBeUndefined();
    expect(yes({ order: { paid: true }, shipping: { paid: false } }, 'Was it paid?')).toBeUndefined();
    expect(yes({ invoice: { paid: true }, fee: { paid: false } }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ vip: true, has_overdue_invoice: false, overdue: true }, 'Does the customer have an overdue invoice?')).toBeUndefined();
  });

  it('when the named field is no boolean, or says the same in words elsewhere', () => {
    expect(yes({ invoice: 'INV-8', status: 'paid' }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: 120 }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: 'yes' }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: null }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: { on: '2025-03-01' } }, 'Has the invoice been paid?')).toBeUndefined();
    // Other fields with the flag's words may say more than it: partly paid, paid when.
    expect(yes({ invoice: 'INV-8', paid: true, amount: 120, amount_paid: 60 }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: true, note: 'paid partially' }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: true, pay_status: 'partial' }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ customer_id: 'C-1', cancelled: true, cancel_reason: 'too expensive' }, 'Did the customer cancel?')).toBeUndefined();
    expect(yes({ customer_id: 'C-1', cancelled: true }, 'Did the customer cancel?')).toBe(true);
  });

  it('when the field is inside a list and the question gives no reference', () => {
    expect(yes({ invoices: [{ id: 'INV-8', paid: true }] }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoices: [{ paid: true }, { paid: false }] }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', paid: true, lines: [{ paid: false }] }, 'Has the invoice been paid?')).toBeUndefined();
  });

  it('when more words make it a different question', () => {
    for (const q of [
      'Was the invoice paid late?',
      'Was the invoice paid twice?',
      'Was the invoice paid by card?',
      'Was the invoice paid in full?',
      'Was the invoice paid on time?',
      'Was the invoice partially paid?',
      'Was the invoice paid to the supplier?',
      'Has the invoice been paid for?',
      'Is the invoice being paid?',
      'Is the invoice to be paid?',
      'Was the invoice paid after the due date?',
    ]) expect(yes(invoice, q), q).toBeUndefined();
    expect(yes({ order: 7, shipped: true }, 'Was the order shipped to Germany?')).toBeUndefined();
    expect(yes({ order: 7, shipped: true }, 'Was order 7 shipped?')).toBeUndefined();
    expect(yes({ order: 7, shipped: true }, 'Is the order shipping?')).toBeUndefined();
    expect(yes({ order: 7, shipped: true }, 'Does the order ship?')).toBeUndefined();
    // A key in a verb's base form is a setting: "Did the order ship?" does not name `ship`.
    expect(yes({ order: 7, ship: true }, 'Did the order ship?')).toBeUndefined();
  });

  it('on selectors, hypotheticals, modals and other questions than yes or no', () => {
    for (const q of [
      'Is the invoice still paid?',
      'Was the invoice ever paid?',
      'Was the invoice paid first?',
      'Has the invoice already been paid?',
      'Has the invoice been paid yet?',
      'Was the invoice paid again?',
      'Is the invoice only paid?',
      'If the invoice were paid, would it be closed?',
      'Would the invoice be paid?',
      'Will the invoice be paid?',
      'Should the invoice be paid?',
      'Can the invoice be paid?',
      'Why was the invoice paid?',
      'When was the invoice paid?',
      'Is `paid` paid?',
      'Is the "invoice" paid?',
    ]) expect(yes(invoice, q), q).toBeUndefined();
  });

  it('when the subject is not the record the field belongs to', () => {
    // A person "been paid" received money; `paid` says they paid.
    expect(yes({ customer: 'ana', paid: true }, 'Has the customer been paid?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', seller: 'bo', paid: true }, 'Has the seller been paid?')).toBeUndefined();
    // An amount or a part of the record is not the record.
    expect(yes({ deposit: 200, paid: false }, 'Was the deposit paid?')).toBeUndefined();
    expect(yes({ paid: true, shipped: false }, 'Is the refund paid?')).toBeUndefined();
    // A number under a plural key is a count, not the record's id.
    expect(yes({ orders: 7, shipped: true }, 'Were the orders shipped?')).toBeUndefined();
    expect(yes({ order: 7, shipped: true }, 'Were the orders shipped?')).toBe(true);
    expect(yes({ active: false, plan: { name: 'pro' } }, 'Is the plan active?')).toBeUndefined();
    expect(yes({ user: 'ana', email: 'a@b.example', phone: '+44 20 7946 0000', verified: true }, 'Is the phone verified?')).toBeUndefined();
    // The first identifier names the record; a later one is another record's (a foreign key).
    expect(yes({ order_id: 7, customer_id: 'C-1', verified: true }, 'Is the customer verified?')).toBeUndefined();
    expect(yes({ order_id: 7, customer_id: 'C-1', verified: true }, 'Is the order verified?')).toBe(true);
    expect(yes({ order: 7, customer: 'ana', paid: true }, 'Has the customer paid?')).toBeUndefined();
    // A state that names its record ("user") does not answer for another ("account").
    expect(yes({ user: 'ana', verified: true }, 'Is the account verified?')).toBeUndefined();
    expect(yes({ invoice: 'INV-8', payment: { paid: true } }, 'Has the invoice been paid?')).toBeUndefined();
    expect(yes({ user: 'bo', paid: true }, 'Has Ana paid?')).toBeUndefined();
    expect(yes('The invoice INV-8 has been paid.', 'Has the invoice been paid?')).toBeUndefined();
  });

  it('as the stage already does: noul criteria, structured instructions with unreferenced data', () => {
    expect(yes(invoice, noul('Has the invoice been paid?', { true: 'paid in full and on time', false: null }))).toBeUndefined();
    expect(yes(invoice, noul({ question: 'Has the invoice been paid?', policy: 'A payment counts once it clears.' }))).toBeUndefined();
    expect(yes(invoice, noul({ question: 'Has the invoice been paid?' }))).toBe(true);
  });
});

/** Records, their flag in several key styles, and wordings that name it. */
const FLAGS: { record: string; words: string; keys: string[]; asks: ((r: string) => string)[] }[] = [
  { record: 'invoice', words: 'paid', keys: ['paid', 'is_paid', 'isPaid'], asks: [(r) => `Has the ${r} been paid?`, (r) => `Is the ${r} paid?`, (r) => `Is it true that the ${r} was paid?`, (r) => `The ${r} has been paid.`] },
  { record: 'order', words: 'shipped', keys: ['shipped', 'is_shipped', 'wasShipped'], asks: [(r) => `Was the ${r} shipped?`, (r) => `Has the ${r} been shipped?`, (r) => `Did the ${r} ship?`] },
  { record: 'user', words: 'verified', keys: ['verified', 'isVerified', 'is verified'], asks: [(r) => `Is the ${r} verified?`, (r) => `True or false: the ${r} is verified.`] },
  { record: 'ticket', words: 'escalated', keys: ['escalated', 'is_escalated'], asks: [(r) => `Has the ${r} been escalated?`, (r) => `Was the ${r} escalated?`] },
  { record: 'customer', words: 'overdue invoice', keys: ['has_overdue_invoice', 'hasOverdueInvoice'], asks: [(r) => `Does the ${r} have an overdue invoice?`] },
];

/** Other fields a record may carry, none of them named by the questions. */
const extraArb = fc.dictionary(fc.constantFrom('amount', 'currency', 'created', 'region', 'notes', 'priority'), fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom('EUR', 'EMEA', '2025-03-01', 'call back', '')), { maxKeys: 4 });

const flagCaseArb = fc.record({ flag: fc.constantFrom(...FLAGS), key: fc.nat(), ask: fc.nat(), value: fc.boolean(), id: fc.constantFrom('INV-8', 'A-1001', 'ana', 42), extra: extraArb }).map(({ flag, key, ask, value, id, extra }) => ({
  state: { [flag.record]: id, ...extra, [flag.keys[key % flag.keys.length]!]: value } as State,
  question: flag.asks[ask % flag.asks.length]!(flag.record),
  key: flag.keys[key % flag.keys.length]!,
  value,
}));

/** Inserts "not" after the question's auxiliary or the statement's verb. */
function negate(question: string): string {
  return question.replace(/^(Has|Is|Was|Did|Does)( the \w+)/, '$1$2 not').replace(/^(Is it true that the \w+ was)/, '$1 not').replace(/^(True or false: the \w+ is)/, '$1 not').replace(/^(The \w+ has)/, '$1 not');
}

describe('flag invariants', () => {
  it('the answer is the field\'s value, whatever the key style, wording and other fields', () => {
    fc.assert(
      fc.property(flagCaseArb, ({ state, question, value }) => {
        expect(yes(state, question)).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('a negated question never gets an exact answer', () => {
    fc.assert(
      fc.property(flagCaseArb, ({ state, question }) => {
        const negated = negate(question);
        expect(negated).toMatch(/\bnot\b/);
        expect(yes(state, negated)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('renaming the field to a word the question does not use never gets an exact answer', () => {
    const other = fc.constantFrom('settled', 'archived', 'flagged_for_review', 'closedOut', 'is_priority', 'confirmed', 'pay', 'verify', 'ship', 'unpaid', 'not_shipped', 'has_invoice');
    fc.assert(
      fc.property(flagCaseArb, other, ({ state, question, key }, renamed) => {
        const { [key]: value, ...rest } = state as Record<string, unknown>;
        expect(yes({ ...rest, [renamed]: value } as State, question)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('a phrase that adds words after the field, or the field inside a list, never gets an exact answer', () => {
    const tail = fc.constantFrom('late', 'twice', 'by card', 'in full', 'on time', 'to the supplier', 'yet', 'again', 'early', 'for');
    fc.assert(
      fc.property(flagCaseArb, tail, ({ state, question, key }, words) => {
        expect(yes(state, question.replace(/([?.])$/, ` ${words}$1`))).toBeUndefined();
        const { [key]: value, ...rest } = state as Record<string, unknown>;
        expect(yes({ ...rest, entries: [{ [key]: value }] } as State, question)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
