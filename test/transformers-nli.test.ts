/**
 * Models of the `transformers-nli` kind, through the real transformers.js code path on a tiny
 * random BERT-style ONNX model that the test writes itself: loading (folder, manifest, errors,
 * offline hub ids), each question type against a reference computed with transformers.js'
 * own pair encoding, usage and budgets with the model's tokenizer, validation, batching, long
 * states and the cache.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, RequestValidationError, UnknownModelError, type Engine, type Questions } from '../src/index.js';
import { QUESTION_TOKEN_BUDGET } from '../src/limits.js';
import { NliModel } from '../src/transformers/model.js';
import { hasTransformers, removeTinyModels, tinyModel } from './nli-helpers.js';

const STATE = 'The parcel arrived two weeks late and the box was crushed. I want my money back.';
const QUESTIONS: Questions = {
  refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
  team: { type: 'choice', instructions: 'Which team?', criteria: { shipping: null, billing: 'Payments and refunds', technical: null } },
  mood: { type: 'score', instructions: 'How upset is the customer?', criteria: ['calm', 'annoyed', 'furious'] },
};

interface Reference {
  /** Logits [contradiction, entailment, neutral] of one pair, run alone by transformers.js. */
  logits(premise: string, hypothesis: string): Promise<number[]>;
}

const softmax = (xs: number[]) => {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
};

describe.skipIf(!hasTransformers)('transformers-nli models (tiny random model, no network)', () => {
  let folder: string;
  let engine: Engine;
  let reference: Reference;

  beforeAll(async () => {
    // 256 tokens a pair: the short states here fit one window (the tiny vocabulary spells most
    // words letter by letter), the long one does not.
    folder = tinyModel({ maxLength: 256 });
    engine = await createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli' });
    const { AutoTokenizer, AutoModelForSequenceClassification, env } = await import('@xenova/transformers');
    const id = path.relative(env.localModelPath, folder);
    const tokenizer = await AutoTokenizer.from_pretrained(id, { local_files_only: true });
    const model = await AutoModelForSequenceClassification.from_pretrained(id, { local_files_only: true, quantized: false });
    reference = {
      async logits(premise, hypothesis) {
        const { logits } = await model(tokenizer(premise, { text_pair: hypothesis }));
        return Array.from(logits.data as Float32Array);
      },
    };
  });
  afterAll(async () => {
    await engine?.close();
    removeTinyModels();
  });

  it('lists the folder under its alias and answers with its versioned id', async () => {
    expect(engine.listModels().models.map((m) => m.name)).toEqual(['evalmodel-latest', 'evalmodel-preview', 'evalmodel-nli']);
    expect(engine.resolveModel('evalmodel-nli')).toBe('evalmodel-0.1.0');
    const res = await engine.evaluate({ model: 'evalmodel-nli', state: STATE, questions: QUESTIONS });
    expect(res.model).toBe('evalmodel-0.1.0');
    expect(Object.keys(res.answers)).toEqual(['refund', 'team', 'mood']);
    expect((await engine.evaluate(STATE, QUESTIONS, 'evalmodel-0.1.0')).model).toBe('evalmodel-0.1.0');
    // The built-in model still answers beside it, with its own id.
    expect((await engine.evaluate(STATE, { q: QUESTIONS.refund! }, 'evalmodel-latest')).model).toBe('evalmodel-1.13.0');
  });

  it('answers each type by the documented NLI method (reference: transformers.js pair encoding, one pair at a time)', async () => {
    const res = await engine.evaluate(STATE, QUESTIONS);
    const [C, E] = [0, 1]; // the tiny model's id2label order: contradiction, entailment, neutral
    const margin = async (h: string) => {
      const l = await reference.logits(STATE, h);
      return l[E]! - l[C]!;
    };
    const entail = async (h: string) => (await reference.logits(STATE, h))[E]!;

    const noul = res.answers.refund!;
    expect(noul.type).toBe('noul');
    if (noul.type === 'noul') expect(noul.noul).toBeCloseTo(1 / (1 + Math.exp(-(await margin('Does the customer ask for a refund?')))), 5);

    const choice = res.answers.team!;
    const pChoice = softmax(await Promise.all(['Which team? shipping', 'Which team? billing: Payments and refunds', 'Which team? technical'].map(entail)));
    if (choice.type !== 'choice') throw new Error('not a choice answer');
    Object.values(choice.probabilities).forEach((p, i) => expect(p).toBeCloseTo(pChoice[i]!, 5));
    expect(choice.choice).toBe(['shipping', 'billing', 'technical'][pChoice.indexOf(Math.max(...pChoice))]);

    const score = res.answers.mood!;
    const pScore = softmax(await Promise.all(['calm', 'annoyed', 'furious'].map((d) => entail(`How upset is the customer? ${d}`))));
    if (score.type !== 'score') throw new Error('not a score answer');
    Object.values(score.probabilities).forEach((p, i) => expect(p).toBeCloseTo(pScore[i]!, 5));
    expect(score.score).toBeCloseTo(pScore[1]! + 2 * pScore[2]!, 5);
    expect(score.legend).toEqual({ 0: 'calm', 1: 'annoyed', 2: 'furious' });
  });

  it('noul with criteria: the true criterion is evidence for yes, the false one for no', async () => {
    const q: Questions = { q: { type: 'noul', instructions: 'Is it late?', criteria: { true: 'It arrived after the promised date', false: 'It came on time' } } };
    const res = await engine.evaluate(STATE, q);
    const m = async (h: string) => {
      const l = await reference.logits(STATE, h);
      return l[1]! - l[0]!;
    };
    const z = ((await m('Is it late? It arrived after the promised date')) - (await m('Is it late? It came on time'))) / 2;
    const a = res.answers.q!;
    if (a.type !== 'noul') throw new Error('not noul');
    expect(a.noul).toBeCloseTo(1 / (1 + Math.exp(-z)), 5);
  });

  it('counts usage and budgets with the model tokenizer', async () => {
    const res = await engine.evaluate(STATE, QUESTIONS);
    const { renderQuestion } = await import('../src/index.js');
    const expected = engine.countTokens(STATE) + Object.values(QUESTIONS).reduce((n, q) => n + engine.countTokens(renderQuestion(q).text), 0);
    expect(res.usage).toEqual({ input_tokens: expected, output_tokens: 0 });
    // The tiny WordPiece vocabulary spells most words letter by letter: far more tokens than
    // the built-in SentencePiece tokenizer for the same text.
    expect(engine.countTokens(STATE)).toBeGreaterThan(engine.countTokens(STATE, 'evalmodel-latest') * 2);

    // Over the per-question budget by this tokenizer's count (about 10 tokens a word).
    const long = 'abcdefghij '.repeat(Math.ceil(QUESTION_TOKEN_BUDGET / 10) + 10);
    expect(engine.countTokens(long)).toBeGreaterThan(QUESTION_TOKEN_BUDGET);
    const error = await engine.evaluate(long, { q: QUESTIONS.refund! }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    const detail = (error as RequestValidationError).detail;
    expect(detail.map((d) => d.loc)).toContainEqual(['body', 'questions', 'q']);
    const stateTokens = engine.countTokens(long);
    const questionTokens = engine.countTokens('Does the customer ask for a refund?');
    expect(detail.find((d) => d.loc.join('.') === 'body.questions.q')).toMatchObject({ type: 'too_many_tokens', input: stateTokens + questionTokens });
  });

  it('estimates its work (the whole state once per outcome) and refuses a request over the cap before running it', async () => {
    const state = 'The parcel arrived broken and late. '.repeat(20);
    const questions: Questions = { q: { type: 'choice', instructions: 'Which team?', criteria: { billing: null, shipping: null, returns: null } } };
    const request = { model: 'evalmodel-nli', state, questions };
    const estimate = await engine.estimateWork!(request);
    expect(estimate).toBeGreaterThanOrEqual(3 * 20 * 7);
    const capped = await createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli', maxRequestWork: Math.floor(estimate / 2) });
    try {
      const error = (await capped.evaluate(request).catch((e: unknown) => e)) as RequestValidationError;
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(error.detail[0]).toMatchObject({ type: 'too_much_work', ctx: { estimate, limit: Math.floor(estimate / 2) } });
      // Refused before the model ran: no pair was read.
      expect(capped.stats().questionEncodes).toBe(0);
      let reported = 0;
      await engine.evaluate(request, { onWork: (units) => (reported = units) });
      expect(reported).toBe(estimate);
    } finally {
      await capped.close();
    }
  });

  it('validates requests exactly as for the built-in model', async () => {
    const bad = { model: 'evalmodel-nli', state: STATE, questions: { a: { type: 'choice', instructions: 'x' }, b: { type: 'nope' } } };
    const nli = (await engine.evaluate(bad).catch((e: unknown) => e)) as RequestValidationError;
    const builtin = (await engine.evaluate({ ...bad, model: 'evalmodel-latest' }).catch((e: unknown) => e)) as RequestValidationError;
    expect(nli).toBeInstanceOf(RequestValidationError);
    expect(nli.detail).toEqual(builtin.detail);
    await expect(engine.evaluate({ model: 'evalmodel-nli', state: STATE, questions: {} })).rejects.toBeInstanceOf(RequestValidationError);
    await expect(engine.evaluate(STATE, QUESTIONS, 'evalmodel-0.2.0')).rejects.toBeInstanceOf(UnknownModelError);
  });

  it('caches per model and state: a repeated request runs nothing and answers the same', async () => {
    const state = `${STATE} (cache test)`;
    const before = engine.stats();
    const first = await engine.evaluate(state, QUESTIONS);
    const mid = engine.stats();
    expect(mid.stateEncodes).toBe(before.stateEncodes + 1);
    // One pair per hypothesis: noul without criteria has one (its instructions), 3 options, 3 levels.
    expect(mid.questionEncodes).toBe(before.questionEncodes + 1 + 3 + 3);
    const again = await engine.evaluate(state, QUESTIONS);
    expect(again).toEqual(first);
    const after = engine.stats();
    expect(after.stateEncodes).toBe(mid.stateEncodes);
    expect(after.questionEncodes).toBe(mid.questionEncodes);
    expect(after.cache.hits).toBe(mid.cache.hits + 1);
    // The same state on the built-in model is another cache entry: the key holds the model id.
    const builtin = await engine.evaluate(state, QUESTIONS, 'evalmodel-latest');
    expect(builtin.model).toBe('evalmodel-1.13.0');
    expect(engine.stats().cache.misses).toBe(after.cache.misses + 1);
  });

  it("shares a question's run between concurrent identical requests, and one client's abort does not fail the other", async () => {
    const state = `${STATE} (abort test ${Math.random()})`;
    const one: Questions = { refund: QUESTIONS.refund! };
    // Each run waits 100 ms before scoring, so that the second request joins the first's run
    // and the first client leaves while it waits; the run's signal is recorded.
    const original = NliModel.prototype.score;
    const signals: (AbortSignal | undefined)[] = [];
    const spy = vi.spyOn(NliModel.prototype, 'score').mockImplementation(async function (this: NliModel, premise, hypotheses, signal) {
      signals.push(signal);
      await new Promise((r) => setTimeout(r, 100));
      return original.call(this, premise, hypotheses, signal);
    });
    try {
      const leaving = new AbortController();
      const gone = engine.evaluate(state, one, 'evalmodel-nli', { signal: leaving.signal });
      const staying = engine.evaluate(state, one, 'evalmodel-nli');
      await new Promise((r) => setTimeout(r, 20));
      leaving.abort();
      await expect(gone).rejects.toThrow();
      const answer = await staying;
      // One run served both, and it was not aborted by the client that left.
      expect(signals).toHaveLength(1);
      expect(signals[0]?.aborted).toBe(false);
      // When every request waiting on a run leaves, the run is aborted.
      const other = `${state} (both leave)`;
      const a = new AbortController();
      const b = new AbortController();
      const first = engine.evaluate(other, one, 'evalmodel-nli', { signal: a.signal });
      const second = engine.evaluate(other, one, 'evalmodel-nli', { signal: b.signal });
      await new Promise((r) => setTimeout(r, 20));
      a.abort();
      b.abort();
      await expect(first).rejects.toThrow();
      await expect(second).rejects.toThrow();
      expect(signals).toHaveLength(2);
      expect(signals[1]?.aborted).toBe(true);
      spy.mockRestore();
      // The answer that survived is the one a fresh engine without a cache gives.
      const fresh = await createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli', cacheBytes: 0 });
      try {
        expect(answer).toEqual(await fresh.evaluate(state, one));
      } finally {
        await fresh.close();
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('answers the same without a cache, and with batches of one pair', async () => {
    const uncached = await createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli', cacheBytes: 0 });
    const batchOne = await createEngine({ modelDir: tinyModel({ maxLength: 256, settings: { batchSize: 1 } }), defaultModel: 'evalmodel-nli' });
    try {
      const many: Questions = { ...QUESTIONS, big: { type: 'choice', instructions: 'Which word?', criteria: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`option ${i}`, null])) } };
      const base = await engine.evaluate(STATE, many);
      expect(await uncached.evaluate(STATE, many)).toEqual(base);
      expect(await uncached.evaluate(STATE, many)).toEqual(base);
      expect(uncached.stats().cache.hits).toBe(0);
      const one = await batchOne.evaluate(STATE, many);
      for (const [id, a] of Object.entries(one.answers)) {
        const b = base.answers[id]!;
        if (a.type === 'noul' && b.type === 'noul') expect(a.noul).toBeCloseTo(b.noul, 5);
        else if (a.type !== 'noul' && b.type !== 'noul') {
          const pa = Object.values(a.probabilities);
          Object.values(b.probabilities).forEach((p, i) => expect(pa[i]).toBeCloseTo(p, 5));
        }
      }
      expect(batchOne.stats().questionEncodes).toBe(1 + 3 + 3 + 40);
    } finally {
      await Promise.all([uncached.close(), batchOne.close()]);
    }
  });

  it('reads a state longer than the window in windows, each hypothesis whole', async () => {
    const long = `${'The carrier left the parcel at the wrong door. '.repeat(30)}I want a refund.`;
    expect(engine.countTokens(long)).toBeGreaterThan(256 * 3);
    const before = engine.stats().questionEncodes;
    const res = await engine.evaluate(long, { q: QUESTIONS.refund! });
    const pairs = engine.stats().questionEncodes - before;
    expect(pairs).toBeGreaterThan(4);
    const a = res.answers.q!;
    if (a.type !== 'noul') throw new Error('not noul');
    expect(a.noul).toBeGreaterThanOrEqual(0);
    expect(a.noul).toBeLessThanOrEqual(1);
  });
});

describe.skipIf(!hasTransformers)('transformers-nli loading', () => {
  afterAll(() => removeTinyModels());

  it('takes a manifest with relative folders, its own ids, aliases, labels and temperatures', async () => {
    const folder = tinyModel({ labels: ['yes-it-follows', 'opposite', 'unrelated'] });
    const manifest = {
      aliases: { 'evalmodel-latest': 'evalmodel-3.1.0', 'my-nli': 'evalmodel-3.1.0' },
      listed: [{ name: 'my-nli', description: 'A tiny model', release_date: '2026-01-02' }],
      models: {
        'evalmodel-3.1.0': {
          kind: 'transformers-nli' as const,
          description: 'tiny',
          release_date: '2026-01-02',
          path: path.basename(folder),
          labels: { entailment: 'yes-it-follows', contradiction: 'opposite' },
          temperature: { choice: 1000 },
        },
      },
    };
    const { writeFileSync } = await import('node:fs');
    const file = path.join(path.dirname(folder), 'manifest.json');
    writeFileSync(file, JSON.stringify(manifest));
    const engine = await createEngine({ manifest: file });
    try {
      expect(engine.listModels()).toEqual({ models: manifest.listed });
      const res = await engine.evaluate(STATE, { q: QUESTIONS.team! });
      expect(res.model).toBe('evalmodel-3.1.0');
      const a = res.answers.q!;
      if (a.type !== 'choice') throw new Error('not choice');
      // A huge temperature flattens the softmax towards uniform.
      for (const p of Object.values(a.probabilities)) expect(p).toBeCloseTo(1 / 3, 2);
      // Unrecognised label names without the manifest's 'labels' fail with the names.
      const bare = { ...manifest, models: { 'evalmodel-3.1.0': { ...manifest.models['evalmodel-3.1.0'], labels: undefined, path: folder } } };
      await expect(createEngine({ manifest: bare })).rejects.toThrow(/no entailment label among 'yes-it-follows', 'opposite', 'unrelated'/);
    } finally {
      await engine.close();
    }
  });

  it('fails early, naming what is missing, for a folder that is not a model', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const empty = mkdtempSync(path.join(tmpdir(), 'evalmodel-empty-'));
    try {
      await expect(createEngine({ modelDir: empty })).rejects.toThrow(/missing config.json, tokenizer.json, tokenizer_config.json, onnx\/model_quantized.onnx or onnx\/model.onnx/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('never reaches the network for a hub id unless remote models are allowed', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('network used'));
    try {
      const manifest = {
        aliases: {},
        listed: [],
        models: { 'evalmodel-4.0.0': { kind: 'transformers-nli' as const, description: 'hub', release_date: '2026-01-01', hub: 'Xenova/not-downloaded-here' } },
      };
      const engine = await createEngine({ manifest, defaultModel: 'evalmodel-4.0.0' }).catch((e: unknown) => e);
      expect(engine).toBeInstanceOf(Error);
      expect((engine as Error).message).toMatch(/local/);
      expect(fetch).not.toHaveBeenCalled();

      // Turned on, the same entry is fetched (here from a stub that refuses).
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const cache = mkdtempSync(path.join(tmpdir(), 'evalmodel-hub-cache-'));
      try {
        const remote = await createEngine({ manifest, defaultModel: 'evalmodel-4.0.0', allowRemoteModels: true, transformersCacheDir: cache }).catch((e: unknown) => e);
        expect(remote).toBeInstanceOf(Error);
        expect(fetch).toHaveBeenCalled();
        expect(String(fetch.mock.calls[0]![0])).toContain('Xenova/not-downloaded-here');
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    } finally {
      fetch.mockRestore();
    }
  });
});

describe.skipIf(!hasTransformers)('transformers-nli pairs (the tokenizer of the tiny model)', () => {
  afterAll(() => removeTinyModels());

  it('cuts a long premise into consecutive windows, each with the whole hypothesis and the special tokens', async () => {
    const { AutoTokenizer, env } = await import('@xenova/transformers');
    const { pairRows, pairOverhead, tokenStrings } = await import('../src/transformers/pairs.js');
    const folder = tinyModel({ maxLength: 64 });
    const tokenizer = (await AutoTokenizer.from_pretrained(path.relative(env.localModelPath, folder), { local_files_only: true })) as never;
    const premise = tokenStrings(tokenizer, 'The carrier left the parcel at the wrong door. '.repeat(4));
    const hypothesis = tokenStrings(tokenizer, 'The parcel is late.');
    expect(pairOverhead(tokenizer)).toBe(3); // [CLS] a [SEP] b [SEP]
    const rows = pairRows(tokenizer, premise, hypothesis, 64);
    const window = 64 - 3 - hypothesis.length;
    expect(rows.length).toBe(Math.ceil(premise.length / window));
    const { model } = tokenizer as unknown as { model: { convert_tokens_to_ids(t: string[]): number[] } };
    const [cls, sep] = model.convert_tokens_to_ids(['[CLS]', '[SEP]']);
    const hypIds = model.convert_tokens_to_ids(hypothesis);
    const seen: number[] = [];
    for (const row of rows) {
      expect(row.ids.length).toBeLessThanOrEqual(64);
      expect(row.ids[0]).toBe(cls);
      expect(row.ids.slice(-hypIds.length - 1, -1)).toEqual(hypIds);
      expect(row.ids.at(-1)).toBe(sep);
      const middle = row.ids.indexOf(sep!);
      seen.push(...row.ids.slice(1, middle));
      expect(row.typeIds).toEqual(row.ids.map((_, i) => (i <= middle ? 0 : 1)));
    }
    expect(seen).toEqual(model.convert_tokens_to_ids(premise));
    // A short premise is one row, the same as transformers.js' own pair encoding.
    const short = tokenStrings(tokenizer, 'It is late.');
    const [row] = pairRows(tokenizer, short, hypothesis, 64);
    const own = (tokenizer as unknown as (a: string, o: object) => { input_ids: { data: BigInt64Array } })('It is late.', { text_pair: 'The parcel is late.' });
    expect(row!.ids).toEqual(Array.from(own.input_ids.data, Number));
  });
});
