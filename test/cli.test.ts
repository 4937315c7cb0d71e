/**
 * The `evalmodel` command line, as a person runs it: each test spawns `node dist/src/cli/main.js`
 * (built once in beforeAll) and checks what it prints and its exit status, for every command,
 * with good and bad input.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SystemOneResponse } from '../src/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'dist/src/cli/main.js');
const STATE = 'The parcel arrived two weeks late and the box was crushed. I want my money back.';

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with `args`, optionally feeding `input` on stdin. */
function cli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Result {
  const env = { ...process.env, ...options.env };
  delete env.EVALMODEL_API_KEYS;
  Object.assign(env, options.env);
  const run = spawnSync(process.execPath, [MAIN, ...args], { cwd: options.cwd ?? ROOT, input: options.input ?? '', encoding: 'utf8', env, timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

let tmp: string;

beforeAll(() => {
  // Compile as `npm run build` does; tsc emits even when some other module has a type error,
  // so the CLI is tested whenever it was emitted.
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (!existsSync(MAIN)) throw new Error('dist/src/cli/main.js was not built: run npm run build');
}, 300_000);

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'evalmodel-cli-'));
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('evalmodel (top level)', () => {
  it('--help lists the four commands and exits 0', () => {
    const r = cli(['--help']);
    expect(r.status, r.stderr).toBe(0);
    for (const c of ['ask', 'serve', 'models', 'bench']) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\s{3,}\\S`, 'm'));
  });

  it('without arguments prints the help on stderr and exits 2', () => {
    const r = cli([]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('Usage: evalmodel <command>');
  });

  it('--version prints the package version', () => {
    const r = cli(['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('has --help for every command, also as `help <command>`', () => {
    for (const c of ['ask', 'serve', 'models', 'bench']) {
      const a = cli([c, '--help']);
      expect(a.status, c).toBe(0);
      expect(a.stdout, c).toContain(`Usage: evalmodel ${c}`);
      const b = cli(['help', c]);
      expect(b.status, c).toBe(0);
      expect(b.stdout).toBe(a.stdout);
    }
  });

  it('rejects an unknown command or option with exit 2', () => {
    const a = cli(['frobnicate']);
    expect(a.status, a.stderr).toBe(2);
    expect(a.stderr).toContain("unknown command 'frobnicate'");
    const b = cli(['--frobnicate']);
    expect(b.status, b.stderr).toBe(2);
    const c = cli(['help', 'frobnicate']);
    expect(c.status, c.stderr).toBe(2);
  });
});

describe('evalmodel ask', () => {
  let json: SystemOneResponse;

  it('writes nothing to stderr when it succeeds, on the wasm and cpu backends (no third-party banners)', () => {
    for (const backend of ['wasm', 'cpu']) {
      const r = cli(['ask', STATE, '--noul', 'Is the customer unhappy?', '--backend', backend]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, backend).toBe('');
    }
  });

  it('answers the three question types with aligned bars and confidence', () => {
    const r = cli(['ask', STATE, '--noul', 'Does the customer ask for a refund?', '--choice', 'Which team?=shipping,billing,technical', '--score', 'How upset is the customer?=calm,annoyed,upset,furious']);
    expect(r.status, r.stderr).toBe(0);
    // Not a terminal: no progress indicator, nothing on stderr.
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^Does the customer ask for a refund\?  \[noul\]  p\(yes\) 0\.\d{4}$/));
    expect(lines).toContainEqual(expect.stringMatching(/^Which team\?  \[choice\]  (shipping|billing|technical)  confidence [01]\.\d{4}$/));
    expect(lines).toContainEqual(expect.stringMatching(/^How upset is the customer\?  \[score\]  \d\.\d\d on 0-3  confidence [01]\.\d{4}$/));
    const bars = lines.filter((l) => /^  \S/.test(l));
    expect(bars).toHaveLength(2 + 3 + 4);
    // Aligned: every value starts in the same column, and each block's values sum to 1.
    const columns = new Set(bars.map((l) => l.search(/[01]\.\d{4}(  ◀)?$/)));
    expect(columns.size).toBe(1);
    const values = bars.map((l) => Number(/([01]\.\d{4})(  ◀)?$/.exec(l)![1]));
    for (const [from, to] of [[0, 2], [2, 5], [5, 9]] as const) {
      expect(values.slice(from, to).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    }
    // One ◀ per question marks the top outcome.
    expect(bars.filter((l) => l.endsWith('◀'))).toHaveLength(3);
    expect(lines.at(-2)).toMatch(/^model evalmodel-1\.13\.0 · \d+ input tokens · 0 output tokens · backend (onnxruntime-node|tensorflow|wasm|cpu)( \(.*passed over.*\))? · heads (onnxruntime-node|tfjs)( \(.*passed over.*\))? · reader (onnxruntime-node|tfjs)( \(.*passed over.*\))? · [\d.]+ s$/);
  });

  it('--json prints the raw SystemOneResponse, with the same numbers the bars show', () => {
    const args = ['ask', STATE, '--choice', 'Which team?=shipping,billing,technical', '--score', 'How upset?=calm,annoyed,furious', '--noul', 'Is it a refund request?'];
    const r = cli([...args, '--json']);
    expect(r.status, r.stderr).toBe(0);
    json = JSON.parse(r.stdout) as SystemOneResponse;
    expect(json.model).toBe('evalmodel-1.13.0');
    expect(Object.keys(json.answers)).toEqual(['Which team?', 'How upset?', 'Is it a refund request?']);
    const choice = json.answers['Which team?']!;
    expect(choice.type).toBe('choice');
    if (choice.type === 'choice') expect(Object.keys(choice.probabilities)).toEqual(['shipping', 'billing', 'technical']);
    const score = json.answers['How upset?']!;
    if (score.type === 'score') expect(score.legend).toEqual({ 0: 'calm', 1: 'annoyed', 2: 'furious' });
    expect(json.usage.output_tokens).toBe(0);
    expect(json.usage.input_tokens).toBeGreaterThan(10);

    const text = cli(args).stdout;
    if (choice.type === 'choice') {
      for (const [option, p] of Object.entries(choice.probabilities)) expect(text).toMatch(new RegExp(`  ${option} +\\S* +${p.toFixed(4)}`));
    }
  });

  it('reads the state from --file and from standard input, with the same answers', async () => {
    const file = path.join(tmp, 'ticket.txt');
    await writeFile(file, STATE);
    const args = ['--choice', 'Which team?=shipping,billing,technical', '--score', 'How upset?=calm,annoyed,furious', '--noul', 'Is it a refund request?', '--json'];
    const fromFile = cli(['ask', '--file', file, ...args]);
    expect(fromFile.status, fromFile.stderr).toBe(0);
    const fromStdin = cli(['ask', ...args], { input: STATE });
    expect(fromStdin.status, fromStdin.stderr).toBe(0);
    const fromDash = cli(['ask', '-f', '-', ...args], { input: STATE });
    expect(JSON.parse(fromFile.stdout)).toEqual(JSON.parse(fromStdin.stdout));
    expect(JSON.parse(fromDash.stdout)).toEqual(JSON.parse(fromStdin.stdout));
    const reference = cli(['ask', STATE, ...args]);
    expect(JSON.parse(fromFile.stdout)).toEqual(JSON.parse(reference.stdout));
  });

  it('parses a JSON state with --json-state, and sends a whole body with --request', () => {
    const state = { order: 42, status: 'lost in transit', days_late: 9 };
    const a = cli(['ask', '--json-state', JSON.stringify(state), '--noul', 'Is the order lost?', '--json']);
    expect(a.status, a.stderr).toBe(0);
    const body = { model: 'evalmodel-1.13.0', state, questions: { 'Is the order lost?': { type: 'noul', instructions: 'Is the order lost?' } } };
    const b = cli(['ask', '--request', '-', '--json'], { input: JSON.stringify(body) });
    expect(b.status, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
  });

  it('--explain shows what the exact stage read, bound and computed; --no-exact leaves every question to the model', () => {
    const state = JSON.stringify({ total_eur: 1250, status: 'open' });
    const r = cli(['ask', '--json-state', state, '--noul', 'Is `total_eur` below 100?', '--noul', 'Is the customer happy?', '--explain']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Is `total_eur` below 100?: answered exactly');
    expect(r.stdout).toContain('bound  `total_eur` = 1250 (money:EUR)');
    expect(r.stdout).toContain('result false');
    expect(r.stdout).toMatch(/Is the customer happy\?: left to the model \(/);
    const on = JSON.parse(cli(['ask', '--json-state', state, '--noul', 'Is `total_eur` below 100?', '--json']).stdout) as SystemOneResponse;
    const off = JSON.parse(cli(['ask', '--json-state', state, '--noul', 'Is `total_eur` below 100?', '--json', '--no-exact']).stdout) as SystemOneResponse;
    expect(on.answers['Is `total_eur` below 100?']).toEqual({ type: 'noul', noul: expect.closeTo(0.04, 1) });
    expect(off.answers['Is `total_eur` below 100?']).not.toEqual(on.answers['Is `total_eur` below 100?']);
  });

  it('keeps repeated and escaped question flags apart', () => {
    const r = cli(['ask', 'hello', '--noul', 'Is it a greeting?', '--noul', 'Is it a greeting?', '--choice', 'Kind?=hi\\, there,bye', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as SystemOneResponse;
    expect(Object.keys(res.answers)).toEqual(['Is it a greeting?', 'Is it a greeting? (2)', 'Kind?']);
    const kind = res.answers['Kind?']!;
    if (kind.type === 'choice') expect(Object.keys(kind.probabilities)).toEqual(['hi, there', 'bye']);
  });

  it('prints every 422 problem with its location and exits 2', () => {
    const body = { model: 'evalmodel-latest', document: 'old name', questions: { a: { type: 'maybe' }, b: { type: 'choice', instructions: 'x' } } };
    const r = cli(['ask', '--request', '-'], { input: JSON.stringify(body) });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('failed validation (422)');
    expect(r.stderr).toMatch(/^  body\.document: .+ \[extra_forbidden\]$/m);
    expect(r.stderr).toMatch(/^  body\.questions\.a: .+ \[union_tag_invalid\]$/m);
    expect(r.stderr).toMatch(/^  body\.questions\.b\.choice\.criteria: Field required \[missing\]$/m);
    expect(r.stderr).toMatch(/^  body\.state: Field required \[missing\]$/m);
    // With --json the 422 body itself is printed too, for scripts.
    const j = cli(['ask', 'x', '--score', `q=${Array.from({ length: 11 }, (_, i) => `l${i}`).join(',')}`, '--json']);
    expect(j.status, j.stderr).toBe(2);
    const detail = (JSON.parse(j.stdout) as { detail: { loc: unknown[]; type: string }[] }).detail;
    expect(detail).toEqual([expect.objectContaining({ loc: ['body', 'questions', 'q', 'score', 'criteria'], type: 'too_long' })]);
  });

  it.each([
    [['ask', 'text'], 'no questions'],
    [['ask', 'one', 'two', '--noul', 'q?'], 'expected one state argument'],
    [['ask', 'text', '--file', 'x.txt', '--noul', 'q?'], 'not both'],
    [['ask', 'text', '--choice', 'Which team?'], "expected question=item"],
    [['ask', 'text', '--choice', '=a,b'], 'question before'],
    [['ask', 'text', '--choice', 'q=a,,b'], 'empty item'],
    [['ask', 'text', '--choice', 'q=a,a'], 'listed twice'],
    [['ask', 'text', '--noul', ' '], 'question is empty'],
    [['ask', '--file', '/nonexistent/state.txt', '--noul', 'q?'], 'no such file'],
    [['ask', '--json-state', '{oops', '--noul', 'q?'], 'not valid JSON'],
    [['ask', 'text', '--noul', 'q?', '--model', 'gpt-9'], "Unknown model 'gpt-9'"],
    [['ask', 'text', '--noul', 'q?', '--backend', 'gpu'], '--backend must be one of'],
    [['ask', 'text', '--noul', 'q?', '--frobnicate'], "Unknown option '--frobnicate'"],
    [['ask', '--request', '-', '--noul', 'q?'], 'whole body'],
  ])('%j exits 2 with a clear message', (args, message) => {
    const r = cli(args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/^evalmodel: error: /);
    expect(r.stdout).toBe('');
  });

  it('prints the ask help with every question flag', () => {
    const r = cli(['ask', '-h']);
    for (const flag of ['--noul', '--choice', '--score', '--file', '--json', '--model', '--request', '--json-state']) expect(r.stdout).toContain(flag);
  });
});

describe('evalmodel models', () => {
  it('lists the aliases with what they resolve to', () => {
    const r = cli(['models']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+RESOLVES TO\s+RELEASED\s+DESCRIPTION$/m);
    expect(r.stdout).toMatch(/^evalmodel-latest\s+evalmodel-1\.13\.0\s+\d{4}-\d\d-\d\d\s+\S/m);
    expect(r.stdout).toMatch(/^evalmodel-preview\s+evalmodel-1\.13\.0\s/m);
  });

  it('--json prints the ModelMetadataList body', () => {
    const r = cli(['models', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as { models: { name: string; description: string; release_date: string }[] };
    expect(list.models.map((m) => m.name)).toEqual(['evalmodel-latest', 'evalmodel-preview']);
    for (const m of list.models) expect(m.release_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('rejects arguments it does not take', () => {
    expect(cli(['models', '--all']).status).toBe(2);
    expect(cli(['models', 'extra']).status).toBe(2);
  });
});

describe('evalmodel bench', () => {
  async function project(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(path.join(tmp, 'project-'));
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), content);
    }
    return dir;
  }

  it('runs the benchmarks that exist, passes arguments through, and says which is missing', async () => {
    const root = await project({ 'dist/bench/speed.js': "console.log('speed ran with', JSON.stringify(process.argv.slice(2)));" });
    const r = cli(['bench', '--root', root, '--', '--quick']);
    expect(r.stdout).toContain('speed ran with ["--quick"]');
    expect(r.stderr).toContain('bench/accuracy is not part of the installed package');
    expect(r.stderr).toContain('npm run bench:accuracy');
    expect(r.stderr).toMatch(/bench\/speed/);
    expect(r.status, r.stderr).toBe(1);
  });

  it('tells a benchmark that is present but not built from a missing one', async () => {
    const root = await project({ 'bench/accuracy/index.ts': 'export {};', 'dist/bench/speed/index.js': 'process.exit(0);' });
    const r = cli(['bench', '--root', root]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('bench/accuracy is present but not built');
    expect(r.stderr).toContain('run npm run build');
  });

  it('exits 0 when every named benchmark succeeds, 1 when one fails', async () => {
    const root = await project({ 'dist/bench/accuracy/index.js': "console.log('accuracy ok');", 'dist/bench/speed.js': 'process.exit(3);' });
    const ok = cli(['bench', 'accuracy', '--root', root]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('accuracy ok');
    const failed = cli(['bench', '--root', root]);
    expect(failed.status, failed.stderr).toBe(1);
    expect(failed.stderr).toContain('bench/speed: exited with status 3');
  });

  it('rejects an unknown benchmark name with exit 2', () => {
    const r = cli(['bench', 'latency']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain("unknown benchmark 'latency'");
  });
});

describe('evalmodel serve', () => {
  /** Starts `evalmodel serve` and resolves once it prints its URL. */
  function start(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string }> {
    return new Promise((resolve, reject) => {
      const childEnv = { ...process.env };
      delete childEnv.EVALMODEL_API_KEYS;
      const child = spawn(process.execPath, [MAIN, 'serve', ...args], { cwd: ROOT, env: { ...childEnv, ...env } });
      let out = '';
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve({ child, url: m[1]!, output: () => out });
        }
      });
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited ${code}: ${out}`));
      });
    });
  }

  it('serves the interface with a key and stops with exit 0 on SIGTERM', async () => {
    const { child, url } = await start(['--port', '0', '--quiet'], { EVALMODEL_API_KEYS: 'sk-cli-test' });
    try {
      const auth = { authorization: 'Bearer sk-cli-test' };
      const models = await fetch(`${url}/v1/models`, { headers: auth });
      expect(models.status).toBe(200);
      expect(((await models.json()) as { models: unknown[] }).models).toHaveLength(2);
      expect((await fetch(`${url}/v1/models`)).status).toBe(401);
      const res = await fetch(`${url}/v1/systemone`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'evalmodel-latest', state: STATE, questions: { q: { type: 'noul', instructions: 'Is the customer unhappy?' } } }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as SystemOneResponse;
      expect(body.model).toBe('evalmodel-1.13.0');
      expect(body.answers.q?.type).toBe('noul');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 120_000);

  it("runs @typesafe-ai/sdk's own README quickstart, as written, with TYPESAFE_DEFAULT_MODEL as the one addition", async () => {
    // The quickstart is taken from the installed client's README, not copied here, so that it
    // stays the one users read. It must sit inside the project to resolve the package.
    const readme = readFileSync(path.join(ROOT, 'node_modules/@typesafe-ai/sdk/README.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'the client README has a TypeScript quickstart').toContain('new TypeSafeClient()');
    await mkdir(path.join(ROOT, '.artifacts'), { recursive: true });
    const dir = await mkdtemp(path.join(ROOT, '.artifacts', 'sdk-quickstart-'));
    const file = path.join(dir, 'quickstart.mjs');
    await writeFile(file, code!);
    const { child, url } = await start(['--port', '0', '--quiet', '--workers', '1'], { EVALMODEL_API_KEYS: 'sk-quickstart' });
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TYPESAFE_BASE_URL: url, TYPESAFE_API_KEY: 'sk-quickstart', TYPESAFE_LOG_LEVEL: 'off' };
      delete env.TYPESAFE_DEFAULT_MODEL;
      const run = (extra: NodeJS.ProcessEnv) =>
        new Promise<Result>((resolve) => {
          const c = spawn(process.execPath, [file], { cwd: dir, env: { ...env, ...extra } });
          let stdout = '';
          let stderr = '';
          c.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
          c.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
          c.on('exit', (status) => resolve({ status, stdout, stderr }));
        });
      // Without the variable the client sends its own vendor's default model, which this server
      // does not serve: the error says which models it serves and what to set.
      const bare = await run({});
      expect(bare.status).not.toBe(0);
      expect(bare.stderr).toContain("400 Unknown model 'jev-latest'");
      expect(bare.stderr).toContain('This server serves: evalmodel-latest, evalmodel-preview');
      expect(bare.stderr).toContain('TYPESAFE_DEFAULT_MODEL=evalmodel-latest');
      const ok = await run({ TYPESAFE_DEFAULT_MODEL: 'evalmodel-latest' });
      expect(ok.status, ok.stderr).toBe(0);
      expect(['billing', 'technical', 'other']).toContain(ok.stdout.trim());
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('exits 2 for a bad option, an unreadable keys file, or no key on a public address', () => {
    const port = cli(['serve', '--port', 'abc']);
    expect(port.status, port.stderr).toBe(2);
    expect(port.stderr).toContain('--port');
    const flag = cli(['serve', '--frobnicate', '1']);
    expect(flag.status, flag.stderr).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--frobnicate'");
    const keys = cli(['serve', '--keys-file', '/nonexistent/keys.txt']);
    expect(keys.status, keys.stderr).toBe(2);
    expect(keys.stderr).toContain("cannot use keys file '/nonexistent/keys.txt'");
    // Refused before binding: no key and a non-loopback host without --open.
    const open = cli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(open.status, open.stderr).toBe(2);
    expect(open.stderr).toContain('No API key configured');
  }, 120_000);
});
