/**
 * Units of the command line that a spawned process cannot reach: the progress indicator on a
 * terminal, the bar renderer, the question-flag parser, and `main()` with a terminal on stdin.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { backendLine, bar, renderResponse } from '../src/cli/format.js';
import type { CliIO, OutStream } from '../src/cli/io.js';
import { main } from '../src/cli/main.js';
import { startProgress } from '../src/cli/progress.js';
import { buildQuestions, parseListFlag, splitList } from '../src/cli/questions.js';
import { UsageError } from '../src/cli/errors.js';
import type { EngineStats } from '../src/index.js';

class Capture implements OutStream {
  text = '';
  constructor(readonly isTTY: boolean) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

describe('progress indicator', () => {
  it('draws on a terminal, updates its label and erases its line when stopped', async () => {
    const tty = new Capture(true);
    const p = startProgress(tty, 'Loading evalmodel-latest…', 10);
    await new Promise((r) => setTimeout(r, 60));
    p.update('Evaluating…');
    p.stop();
    p.stop();
    expect(tty.text).toContain('Loading evalmodel-latest…');
    expect(tty.text).toContain('Evaluating…');
    expect(tty.text).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Loading evalmodel-latest… \d+\.\ds/);
    expect(tty.text.endsWith('\r\x1b[K')).toBe(true);
    const after = tty.text.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(tty.text.length).toBe(after);
  });

  it('writes nothing when the stream is not a terminal', () => {
    const pipe = new Capture(false);
    const p = startProgress(pipe, 'Loading…');
    p.update('x');
    p.stop();
    expect(pipe.text).toBe('');
  });
});

describe('bars', () => {
  it('have a fixed width and grow in eighths of a cell', () => {
    for (const v of [0, 0.01, 0.333, 0.5, 0.999, 1, -1, 2, Number.NaN]) expect([...bar(v, 20)]).toHaveLength(20);
    expect(bar(1, 4)).toBe('████');
    expect(bar(0.5, 4)).toBe('██  ');
    expect(bar(1 / 32, 4)).toBe('▏   ');
    expect(bar(0, 4)).toBe('    ');
  });

  it('render a response with one block per question and aligned values', () => {
    const text = renderResponse({
      model: 'evalmodel-1.13.0',
      answers: {
        q: { type: 'noul', noul: 0.25 },
        c: { type: 'choice', choice: 'b', probabilities: { a: 0.2, b: 0.8 }, confidence: 0.6 },
        s: { type: 'score', score: 1.1, legend: { 0: 'low', 1: { level: 'mid' }, 2: ['high'] }, probabilities: { 0: 0.1, 1: 0.7, 2: 0.2 }, confidence: 0.65 },
      },
      usage: { input_tokens: 12, output_tokens: 0 },
    });
    expect(text).toContain('q  [noul]  p(yes) 0.2500');
    expect(text).toContain('c  [choice]  b  confidence 0.6000');
    expect(text).toContain('s  [score]  1.10 on 0-2  confidence 0.6500');
    expect(text).toContain('1 {"level":"mid"}');
    expect(text).toMatch(/  no +[█▏▎▍▌▋▊▉]+ +0\.7500  ◀/);
    const valueColumns = new Set(text.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.search(/0\.\d{4}/)));
    expect(valueColumns.size).toBe(1);
    expect(text.trimEnd().split('\n').at(-1)).toBe('model evalmodel-1.13.0 · 12 input tokens · 0 output tokens');
  });
});

describe('backend line', () => {
  it('names the backend, and why each one before it in the order did not start', () => {
    expect(backendLine({ backend: 'onnxruntime-node', backends: [{ name: 'onnxruntime-node' }, { name: 'tensorflow', error: 'absent' }, { name: 'wasm' }] })).toBe('onnxruntime-node');
    const line = backendLine({
      backend: 'wasm',
      backends: [
        { name: 'onnxruntime-node', error: "Cannot find package 'onnxruntime-node'" },
        { name: 'tensorflow', error: 'no libtensorflow' },
        { name: 'wasm' },
      ],
    });
    expect(line).toBe("wasm (onnxruntime-node passed over: Cannot find package 'onnxruntime-node'; tensorflow passed over: no libtensorflow)");
  });
  it('adds what ran the reader once a request used one, with the reason only for a fallback beside the native encoder', () => {
    const native: Pick<EngineStats, 'backend' | 'backends'> = { backend: 'onnxruntime-node', backends: [{ name: 'onnxruntime-node' }] };
    expect(backendLine({ ...native, reader: null })).toBe('onnxruntime-node');
    expect(backendLine({ ...native, reader: { backend: 'onnxruntime-node', tried: [{ name: 'onnxruntime-node' }] } })).toBe('onnxruntime-node · reader onnxruntime-node');
    expect(backendLine({ ...native, reader: { backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'self-test failed' }, { name: 'tfjs' }] } })).toBe(
      'onnxruntime-node · reader tfjs (onnxruntime-node passed over: self-test failed)',
    );
    const wasm: Pick<EngineStats, 'backend' | 'backends'> = { backend: 'wasm', backends: [{ name: 'wasm' }] };
    expect(backendLine({ ...wasm, reader: { backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'the encoder runs on wasm' }, { name: 'tfjs' }] } })).toBe('wasm · reader tfjs');
  });
  it('adds what ran the trained heads before the reader, with the reason only for a fallback beside the native encoder', () => {
    const native: Pick<EngineStats, 'backend' | 'backends'> = { backend: 'onnxruntime-node', backends: [{ name: 'onnxruntime-node' }] };
    const ort = { backend: 'onnxruntime-node' as const, tried: [{ name: 'onnxruntime-node' as const }] };
    expect(backendLine({ ...native, heads: ort, reader: ort })).toBe('onnxruntime-node · heads onnxruntime-node · reader onnxruntime-node');
    expect(backendLine({ ...native, heads: { backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'self-test failed' }, { name: 'tfjs' }] }, reader: null })).toBe(
      'onnxruntime-node · heads tfjs (onnxruntime-node passed over: self-test failed)',
    );
    const wasm: Pick<EngineStats, 'backend' | 'backends'> = { backend: 'wasm', backends: [{ name: 'wasm' }] };
    expect(backendLine({ ...wasm, heads: { backend: 'tfjs', tried: [{ name: 'onnxruntime-node', error: 'the encoder runs on wasm' }, { name: 'tfjs' }] } })).toBe('wasm · heads tfjs');
  });
});

describe('question flags', () => {
  it('split lists on commas, with \\, for a literal comma', () => {
    expect(splitList('a, b ,c')).toEqual(['a', 'b', 'c']);
    expect(splitList('one\\, two,three')).toEqual(['one, two', 'three']);
  });

  it('split the question at the last =', () => {
    expect(parseListFlag('--choice', 'Is x = y?=yes,no')).toEqual({ question: 'Is x = y?', items: ['yes', 'no'] });
    expect(() => parseListFlag('--score', 'no list here')).toThrow(UsageError);
  });

  it('build questions in command-line order, with ids made unique and prototype keys kept as data', () => {
    const q = buildQuestions([
      { type: 'noul', value: '__proto__' },
      { type: 'choice', value: 'Pick=__proto__,constructor' },
      { type: 'score', value: 'Rate=low,high' },
      { type: 'noul', value: 'Rate' },
    ]);
    expect(Object.keys(q)).toEqual(['__proto__', 'Pick', 'Rate', 'Rate (2)']);
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    const pick = q.Pick!;
    expect(pick.type === 'choice' && Object.keys(pick.criteria)).toEqual(['__proto__', 'constructor']);
    expect(q.Rate).toEqual({ type: 'score', instructions: 'Rate', criteria: ['low', 'high'] });
  });
});

describe('main()', () => {
  function io(stdinIsTTY: boolean): CliIO & { out: Capture; err: Capture } {
    const stdin = Object.assign(new PassThrough(), { isTTY: stdinIsTTY });
    const out = new Capture(false);
    const err = new Capture(false);
    return { stdout: out, stderr: err, stdin, env: {}, out, err };
  }

  it('asks for a state when none is given and nothing is piped', async () => {
    const t = io(true);
    expect(await main(['ask', '--noul', 'Is it?'], t)).toBe(2);
    expect(t.err.text).toContain('no state: pass it as an argument, with --file <path>, or on standard input');
    expect(t.err.text).toContain("Run 'evalmodel ask --help' for usage.");
  });

  it('points parse errors at the command help', async () => {
    const t = io(true);
    expect(await main(['models', '--nope'], t)).toBe(2);
    expect(t.err.text).toContain("Run 'evalmodel models --help' for usage.");
  });
});
