/**
 * What one swap of the row split costs between two threads (encoder/rows.ts,
 * engine/rows-channel.ts): 256 KB each way (64 rows of layer 1's keys and values), through a
 * SharedArrayBuffer with Atomics wait/notify (copies in and out included), and for comparison
 * through a MessagePort, transferred and cloned.
 *
 *   node dist/bench/speed/rows-roundtrip.js
 * @module
 */
import { isMainThread, MessageChannel, type MessagePort, Worker, workerData } from 'node:worker_threads';

const FLOATS = 64 * 1024;
const SAB_ROUNDS = 2000;
const PORT_ROUNDS = 500;
const p50 = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)]! * 1000;
const p90 = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length * 0.9)]! * 1000;

function waitFor(ctrl: Int32Array, index: number, value: number): void {
  while (Atomics.load(ctrl, index) !== value) Atomics.wait(ctrl, index, Atomics.load(ctrl, index), 100);
}

if (isMainThread) {
  const sab = new SharedArrayBuffer(16 + 2 * FLOATS * 4);
  const { port1, port2 } = new MessageChannel();
  new Worker(new URL(import.meta.url), { workerData: { sab, port: port2 }, transferList: [port2] });
  const ctrl = new Int32Array(sab, 0, 4);
  const mine = new Float32Array(sab, 16, FLOATS);
  const theirs = new Float32Array(sab, 16 + FLOATS * 4, FLOATS);
  const src = new Float32Array(FLOATS).fill(1);
  const dst = new Float32Array(FLOATS);
  const t: number[] = [];
  for (let i = 1; i <= SAB_ROUNDS; i++) {
    const s = performance.now();
    mine.set(src);
    Atomics.store(ctrl, 0, i);
    Atomics.notify(ctrl, 0);
    waitFor(ctrl, 1, i);
    dst.set(theirs);
    t.push(performance.now() - s);
  }
  console.log(`SharedArrayBuffer + Atomics, 256 KB each way: p50 ${p50(t).toFixed(0)} us, p90 ${p90(t).toFixed(0)} us`);
  for (const transfer of [true, false]) {
    const u: number[] = [];
    await new Promise<void>((done) => {
      let s = 0;
      const send = () => {
        s = performance.now();
        const b = new Float32Array(FLOATS).fill(1);
        port1.postMessage({ b, transfer }, transfer ? [b.buffer] : []);
      };
      const onMessage = () => {
        u.push(performance.now() - s);
        if (u.length < PORT_ROUNDS) send();
        else {
          port1.off('message', onMessage);
          done();
        }
      };
      port1.on('message', onMessage);
      send();
    });
    console.log(`MessagePort, 256 KB each way ${transfer ? 'transferred' : 'cloned'}: p50 ${p50(u).toFixed(0)} us, p90 ${p90(u).toFixed(0)} us`);
  }
  process.exit(0);
} else {
  const { sab, port } = workerData as { sab: SharedArrayBuffer; port: MessagePort };
  const ctrl = new Int32Array(sab, 0, 4);
  const theirs = new Float32Array(sab, 16, FLOATS);
  const mine = new Float32Array(sab, 16 + FLOATS * 4, FLOATS);
  const buf = new Float32Array(FLOATS);
  for (let i = 1; i <= SAB_ROUNDS; i++) {
    waitFor(ctrl, 0, i);
    buf.set(theirs);
    mine.set(buf);
    Atomics.store(ctrl, 1, i);
    Atomics.notify(ctrl, 1);
  }
  port.on('message', (m: { transfer: boolean }) => {
    const b = new Float32Array(FLOATS).fill(2);
    port.postMessage({ b, transfer: m.transfer }, m.transfer ? [b.buffer] : []);
  });
}
