/**
 * Load test of the HTTP server, on loopback only, bounded in time and request count.
 *
 *   npm run build && node dist/bench/load.js [options]      (or: npm run bench:load -- [options])
 *
 * Three phases over `--duration` seconds (default 30, split evenly):
 *   1. baseline: `--concurrency` closed-loop clients (default 2), which measures the
 *      sustainable throughput R;
 *   2. overload: open-loop arrivals at `--overload` x R (default 4x), whatever the server
 *      answers, with at most `--max-in-flight` outstanding requests;
 *   3. recovery: closed-loop again, to show latency returns to the baseline.
 * Prints, per phase: requests, throughput, p50/p95/p99 latency, counts by status, connection
 * errors; then the server's peak RSS and a verdict (only 200, 429 and 529 answers; no dropped
 * connection; recovery p50 within 1.5x of baseline).
 *
 * By default it starts its own server (`node dist/src/cli/serve.js --port 0`) with rate limits
 * off, so the queue bound (529) is what sheds load; `--url URL --key KEY` targets a running
 * server instead, which must be on a loopback address.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isLoopbackHost } from '../src/server/keys.js';

const HELP = `Usage: node dist/bench/load.js [options]

  --duration S          total seconds, split over baseline/overload/recovery (default 30, max 600)
  --concurrency N       closed-loop clients in baseline and recovery (default 2)
  --overload X          overload arrival rate as a multiple of baseline throughput (default 4)
  --max-in-flight N     outstanding requests allowed during overload (default 256)
  --max-requests N      stop after this many requests in all (default 100000)
  --url URL --key KEY   target a running server (loopback only) instead of starting one
  --server-concurrency N, --max-queue N, --rpm N, --tps N, --wps N
                        settings of the server this script starts (defaults 2, 16, 0 (off), 0 (off), 0 (off))
  -h, --help`;

interface Sample {
  status: number; // 0 = connection error
  ms: number;
}

interface PhaseResult {
  name: string;
  seconds: number;
  samples: Sample[];
}

const sentences = [
  'The parcel arrived two weeks late and the box was crushed.',
  'I was charged twice for the same order, please refund one payment.',
  'Great service, the support agent solved my login problem in minutes.',
  'The app crashes every time I open the settings page on my phone.',
  'Can you tell me when the new model of this blender will be in stock?',
  'My subscription renewed although I cancelled it last month.',
  'The hotel room was clean but the breakfast was cold and the staff rude.',
  'Thanks for the quick delivery, everything works as described.',
];

let counter = 0;
/** A fresh request body; the state differs every time, so the state cache does not help. */
function body(): string {
  counter++;
  const a = sentences[counter % sentences.length]!;
  const b = sentences[(counter * 7 + 3) % sentences.length]!;
  return JSON.stringify({
    state: `Ticket ${counter}: ${a} ${b}`,
    model: 'evalmodel-latest',
    questions: {
      unhappy: { type: 'noul', instructions: 'Is the customer unhappy?' },
      topic: { type: 'choice', instructions: 'What is the ticket about?', criteria: { billing: null, delivery: null, technical: null, other: null } },
      urgency: { type: 'score', instructions: 'How urgent is the ticket?', criteria: ['not urgent', 'somewhat urgent', 'very urgent'] },
    },
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

class Client {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  sent = 0;
  constructor(
    private readonly url: URL,
    private readonly key: string,
    private readonly maxRequests: number,
  ) {}

  get exhausted(): boolean {
    return this.sent >= this.maxRequests;
  }

  /** One evaluation; never rejects. */
  evaluate(): Promise<Sample> {
    this.sent++;
    const payload = body();
    const started = performance.now();
    return new Promise((resolve) => {
      const req = http.request(
        new URL('/v1/systemone', this.url),
        {
          method: 'POST',
          agent: this.agent,
          headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
          res.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

async function closedLoop(client: Client, name: string, concurrency: number, seconds: number): Promise<PhaseResult> {
  const samples: Sample[] = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until && !client.exhausted) samples.push(await client.evaluate());
    }),
  );
  return { name, seconds: (performance.now() - started) / 1000, samples };
}

async function openLoop(client: Client, name: string, ratePerSecond: number, seconds: number, maxInFlight: number): Promise<PhaseResult & { skipped: number }> {
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  const until = started + seconds * 1000;
  let scheduled = 0;
  let skipped = 0;
  while (performance.now() < until && !client.exhausted) {
    const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond);
    while (scheduled < due) {
      scheduled++;
      if (pending.size >= maxInFlight) {
        skipped++;
        continue;
      }
      const p: Promise<void> = client.evaluate().then((s) => {
        samples.push(s);
        pending.delete(p);
      });
      pending.add(p);
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(pending);
  return { name, seconds: (performance.now() - started) / 1000, samples, skipped };
}

function report(phase: PhaseResult): { p50: number } {
  const byStatus = new Map<number, number>();
  for (const s of phase.samples) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
  const all = phase.samples.map((s) => s.ms).sort((a, b) => a - b);
  const ok = phase.samples.filter((s) => s.status === 200).map((s) => s.ms).sort((a, b) => a - b);
  const fmt = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(1));
  const statuses = [...byStatus.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s === 0 ? 'connection-error' : s}: ${n}`)
    .join(', ');
  console.log(
    `${phase.name.padEnd(9)} ${String(phase.samples.length).padStart(6)} req in ${phase.seconds.toFixed(1)} s = ${(phase.samples.length / phase.seconds).toFixed(1)} req/s` +
      ` (200s: ${(ok.length / phase.seconds).toFixed(1)}/s)` +
      ` | all p50 ${fmt(percentile(all, 50))} p95 ${fmt(percentile(all, 95))} p99 ${fmt(percentile(all, 99))} ms` +
      ` | 200 p50 ${fmt(percentile(ok, 50))} p95 ${fmt(percentile(ok, 95))} p99 ${fmt(percentile(ok, 99))} ms | ${statuses}`,
  );
  return { p50: percentile(ok, 50) };
}

/** Peak resident set of a process, from /proc (Linux), in MiB. */
function peakRssMiB(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function startServer(args: string[]): Promise<{ child: ChildProcess; url: URL }> {
  const entry = fileURLToPath(new URL('../src/cli/serve.js', import.meta.url));
  const child = spawn(process.execPath, [entry, '--host', '127.0.0.1', '--port', '0', '--quiet', ...args], {
    env: { ...process.env, EVALMODEL_API_KEYS: 'bench-key' },
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
      duration: { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '2' },
      overload: { type: 'string', default: '4' },
      'max-in-flight': { type: 'string', default: '256' },
      'max-requests': { type: 'string', default: '100000' },
      url: { type: 'string' },
      key: { type: 'string' },
      'server-concurrency': { type: 'string', default: '2' },
      'max-queue': { type: 'string', default: '16' },
      rpm: { type: 'string', default: '0' },
      tps: { type: 'string', default: '0' },
      wps: { type: 'string', default: '0' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const num = (name: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number from ${min} to ${max}`);
    return n;
  };
  const duration = num('duration', values.duration, 3, 600);
  const concurrency = num('concurrency', values.concurrency, 1, 256);
  const overload = num('overload', values.overload, 1, 100);
  const maxInFlight = num('max-in-flight', values['max-in-flight'], 1, 4096);
  const maxRequests = num('max-requests', values['max-requests'], 1, 1_000_000);

  let child: ChildProcess | null = null;
  let url: URL;
  let key: string;
  if (values.url) {
    url = new URL(values.url);
    if (!isLoopbackHost(url.hostname)) throw new Error(`--url must point at a loopback address (127.0.0.0/8, ::1, localhost), not ${url.hostname}`);
    key = values.key ?? process.env.EVALMODEL_API_KEY ?? '';
  } else {
    const started = await startServer([
      '--concurrency',
      values['server-concurrency'],
      '--max-queue',
      values['max-queue'],
      '--rpm',
      values.rpm,
      '--tps',
      values.tps,
      '--wps',
      values.wps,
    ]);
    child = started.child;
    url = started.url;
    key = 'bench-key';
  }
  // Whatever happens, stop by ourselves.
  const hardStop = setTimeout(() => {
    console.error('load: hard time limit reached, stopping');
    child?.kill('SIGKILL');
    process.exit(2);
  }, (duration + 120) * 1000);
  hardStop.unref();

  const client = new Client(url, key, maxRequests);
  console.log(
    `load: ${url.href} | ${duration} s | baseline/recovery concurrency ${concurrency} | overload ${overload}x | ` +
      (child ? `server: concurrency ${values['server-concurrency']}, max-queue ${values['max-queue']}, rpm ${values.rpm}, tps ${values.tps}, wps ${values.wps}` : 'external server'),
  );
  try {
    for (let i = 0; i < 30; i++) await client.evaluate(); // warm-up (JIT, caches), not counted
    const third = duration / 3;
    const baseline = await closedLoop(client, 'baseline', concurrency, third);
    const base = report(baseline);
    const sustainable = baseline.samples.filter((s) => s.status === 200).length / baseline.seconds;
    const rate = Math.max(1, sustainable * overload);
    const over = await openLoop(client, 'overload', rate, third, maxInFlight);
    report(over);
    console.log(`          (overload offered ${rate.toFixed(1)} req/s = ${overload}x ${sustainable.toFixed(1)}; ${over.skipped} arrivals skipped at the in-flight cap)`);
    const recovery = await closedLoop(client, 'recovery', concurrency, third);
    const rec = report(recovery);

    const all = [...baseline.samples, ...over.samples, ...recovery.samples];
    const unexpected = all.filter((s) => ![200, 429, 529].includes(s.status));
    const dropped = all.filter((s) => s.status === 0).length;
    const serverRss = child?.pid ? peakRssMiB(child.pid) : null;
    console.log(
      `peak RSS: server ${serverRss === null ? 'n/a' : `${serverRss.toFixed(0)} MiB`}, load generator ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
    );
    const recovered = rec.p50 <= base.p50 * 1.5;
    console.log(
      `verdict: ${all.length} requests; statuses other than 200/429/529: ${unexpected.length}; dropped connections: ${dropped}; ` +
        `recovery p50 ${rec.p50.toFixed(1)} ms vs baseline ${base.p50.toFixed(1)} ms (${recovered ? 'recovered' : 'NOT recovered'})`,
    );
    return unexpected.length === 0 && dropped === 0 && recovered ? 0 : 1;
  } finally {
    client.close();
    if (child) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`load: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
