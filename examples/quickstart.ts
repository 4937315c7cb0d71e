/**
 * The README's main job: load the embedded default model and evaluate a real support ticket
 * with one question of each type. Run with `npm run example`.
 */
import { createEngine } from '../src/index.js';

const ticket = `Hi, I ordered the Aurora desk lamp (order #48213) three weeks ago and it arrived
yesterday with a cracked base. This is the second time this happens. I want a full refund,
not a replacement, and honestly I am thinking about taking my business elsewhere.`;

const started = performance.now();
const engine = await createEngine();
const loaded = performance.now();

const response = await engine.evaluate({
  model: 'evalmodel-latest',
  state: ticket,
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    topic: {
      type: 'choice',
      instructions: 'Which team should handle this ticket?',
      criteria: {
        shipping: 'Delivery delays and damaged parcels',
        billing: 'Payments, invoices and refunds',
        technical: 'Product setup and malfunctions',
      },
    },
    anger: {
      type: 'score',
      instructions: 'How upset is the customer?',
      criteria: ['calm', 'mildly annoyed', 'clearly upset', 'furious'],
    },
  },
});
const answered = performance.now();

console.log(JSON.stringify(response, null, 2));
console.log(
  `backend ${engine.stats().backend}; load ${(loaded - started).toFixed(0)} ms; evaluate ${(answered - loaded).toFixed(0)} ms`,
);
await engine.close();
