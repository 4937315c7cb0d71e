/**
 * Heavy clients beside small ones, on loopback: do the server's default limits keep small
 * requests fast while other keys send the longest work they may?
 *
 *   npm run build && node dist/bench/heavy.js [--duration S] [--heavy N] [--workers N] [--wps N]
 *
 * Starts `node dist/src/cli/serve.js` with its defaults (work cap, work rate per key, compute
 * deadline, a queue of its own for small bodies), then for `--duration` seconds (default 40):
 * `--heavy` clients (default 2, one key each) send, in closed loops, 20,000-token states with a
 * 16-option question (about 20,000 work units, 10 s of one core), honouring `retry-after-ms` on
 * 429 and 529 as the reference clients do; one small client (its own key) sends the load test's
 * support tickets one at a time. Prints the small requests' p50/p95/p99 and statuses, the heavy
 * clients' statuses, and a verdict: small p95 under 500 ms and no connection error.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const WORDS = 'parcel carrier warehouse invoice refund customer delivery address weather morning report pallet driver station river garden window'.split(' ');
let counter = 0;

function heavyBody(): string {
  const seed = ++counter * 7919;
  const state = [`case ${seed}`, ...Array.from({ length: 20_000 }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length])].join(' ');
  const criteria = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${WORDS[i]} team`, null]));
  return JSON.stringify({ model: 'evalmodel-latest', state, questions: { team: { type: 'choice', instructions: 'Which team handles this report?', criteria } } });
}

function smallBody(): string {
  return JSON.stringify({
    model: 'evalmodel-latest',
    state: `Ticket ${++counter}: The parcel arrived two weeks late and the box was crushed. I want my money back.`,
    questions: {
      unhappy: { type: 'noul', instructions: 'Is the customer unhappy?' },
      topic: { type: 'choice', instructions: 'What is the ticket about?', criteria: { billing: null, delivery: null, technical: null, other: null } },
    },
  });
}

interface Sample {
  status: number;
  ms: number;
  retryMs: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url: URL, key: string, payload: string): Promise<Sample> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      new URL('/v1/systemone', url),
      { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, retryMs: Number(res.headers['retry-after-ms'] ?? 0) }));
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, retryMs: 0 }));
    req.end(payload);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
const statuses = (samples: Sample[]) => {
  const counts = new Map<number, number>();
  for (const s of samples) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return [...counts].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s === 0 ? 'connection-error' : s}: ${n}`).join(', ');
};

async function startServer(keys: string[], args: string[]): Promise<{ child: ChildProcess; url: URL }> {
  const entry = fileURLToPath(new URL('../src/cli/serve.js', import.meta.url));
  const child = spawn(process.execPath, [entry, '--host', '127.0.0.1', '--port', '0', '--quiet', ...args], {
    env: { ...process.env, EVALMODEL_API_KEYS: keys.join(',') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start within 120 s')), 120_000);
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(new URL(m[1]!));
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { child, url };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '40' },
      heavy: { type: 'string', default: '2' },
      workers: { type: 'string' },
      wps: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log('Usage: node dist/bench/heavy.js [--duration S (max 600)] [--heavy N] [--workers N] [--wps N]');
    return 0;
  }
  const duration = Math.min(600, Math.max(5, Number(values.duration)));
  const heavyCount = Math.min(16, Math.max(0, Math.floor(Number(values.heavy))));
  const heavyKeys = Array.from({ length: heavyCount }, (_, i) => `heavy-${i}`);
  const args = [...(values.workers ? ['--workers', values.workers] : []), ...(values.wps ? ['--wps', values.wps] : [])];
  const { child, url } = await startServer(['small-key', ...heavyKeys], args);
  const hardStop = setTimeout(() => {
    child.kill('SIGKILL');
    process.exit(2);
  }, (duration + 180) * 1000);
  hardStop.unref();
  try {
    for (let i = 0; i < 10; i++) await post(url, 'small-key', smallBody()); // warm-up
    const until = performance.now() + duration * 1000;
    const heavySamples: Sample[] = [];
    const smallSamples: Sample[] = [];
    const heavyLoops = heavyKeys.map(async (key) => {
      while (performance.now() < until) {
        const s = await post(url, key, heavyBody());
        heavySamples.push(s);
        if (s.status === 429 || s.status === 529) await new Promise((r) => setTimeout(r, Math.min(s.retryMs || 500, Math.max(0, until - performance.now()))));
      }
    });
    // Small requests start once the heavy ones are under way.
    await new Promise((r) => setTimeout(r, 1_000));
    while (performance.now() < until) smallSamples.push(await post(url, 'small-key', smallBody()));
    await Promise.all(heavyLoops);
    const ok = smallSamples.filter((s) => s.status === 200).map((s) => s.ms).sort((a, b) => a - b);
    const p95 = percentile(ok, 95);
    console.log(`heavy: ${heavyCount} clients, ${heavySamples.length} requests | ${statuses(heavySamples)} | 200 latency p50 ${percentile(heavySamples.filter((s) => s.status === 200).map((s) => s.ms).sort((a, b) => a - b), 50).toFixed(0)} ms`);
    console.log(`small: ${smallSamples.length} requests | ${statuses(smallSamples)} | 200 p50 ${percentile(ok, 50).toFixed(1)} p95 ${p95.toFixed(1)} p99 ${percentile(ok, 99).toFixed(1)} ms`);
    const errors = [...heavySamples, ...smallSamples].filter((s) => s.status === 0).length;
    const pass = p95 < 500 && errors === 0 && ok.length === smallSamples.length;
    console.log(`verdict: small p95 ${p95.toFixed(1)} ms (${p95 < 500 ? 'under' : 'OVER'} 500 ms), small non-200: ${smallSamples.length - ok.length}, connection errors: ${errors} -> ${pass ? 'pass' : 'FAIL'}`);
    return pass ? 0 : 1;
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`heavy: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
