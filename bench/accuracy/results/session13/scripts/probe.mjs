import { createEngine } from '../../../../dist/src/engine/engine.js';
const e = await createEngine({});
const pairs = [
 ['Anna has two cats.','Anna has two dogs.','Does Anna have cats?'],
 ['The flight landed safely at 6 am.','The flight was cancelled at 6 am.','Did the flight land?'],
 ['The shop sells only shoes.','The shop sells only hats.','Does the shop sell shoes?'],
 ['Tom drinks coffee every morning.','Tom drinks tea every morning.','Does Tom drink coffee?'],
 ['The museum opens at 9 am.','The museum is closed today.','Is the museum open at 9 am?'],
 ['Maria speaks French.','Maria speaks Italian.','Does Maria speak French?'],
 ['The car is red.','The car is blue.','Is the car red?'],
 ['Sam bought a new laptop yesterday.','Sam bought a new phone yesterday.','Did Sam buy a laptop?'],
];
for (const [a,b,q] of pairs) {
  const ra = await e.evaluate(a, { q: { type: 'noul', instructions: q } });
  const rb = await e.evaluate(b, { q: { type: 'noul', instructions: q } });
  console.log(ra.answers.q.noul.toFixed(2), rb.answers.q.noul.toFixed(2), '|', q);
}
await e.close();
