/**
 * The pipeline: validation -> model registry -> canonicalizer -> tokenizer -> encoder (state
 * once, cached) -> per-type heads -> answers with usage. Framework-free; every adapter (HTTP
 * server, CLI, benchmarks, playground) calls this through the `Engine` contract.
 * @module
 */
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { flattenWhitespace, renderQuestion, renderState, type RenderedQuestion } from '../canonical/index.js';
import { Encoder, readEncoderWork, type StateEncoding } from '../encoder/index.js';
import { exactAnswer } from '../exact/index.js';
import { EngineClosedError, RequestValidationError } from '../errors.js';
import { answerQuestion, TrainedHeadsRunner } from '../heads/index.js';
import { swappedRenderings } from '../heads/criteria-symmetry.js';
import { gemmReady } from '../kernels/gemm.js';
import { defaultManifestPath, isTransformersSpec, type BuiltinModelSpec, type ModelRegistry, type TransformersModelSpec } from '../registry/index.js';
import { loadVocabulary, type Tokenizer } from '../tokenizer/index.js';
import { engineTokenizer } from './tokens.js';
import type { Answer, Questions, State, SystemOneResponse } from '../types.js';
import { tokenBudgetErrors, validateRequest } from '../validation/index.js';
import type { Engine, EngineConfig, EngineStats, EvaluateOptions } from './contract.js';
import { DEFAULT_MAX_REQUEST_WORK, nliWorkUnits, tooMuchWork, workUnits } from './cost.js';
import { OutcomeCache } from './outcome-cache.js';
import { splitEvaluateArguments } from './arguments.js';
import { StateCache } from './state-cache.js';
import { modelDirId, registryFor } from './registry-config.js';
import { NliEvaluator } from '../transformers/evaluator.js';

/** Texts at least this long have their token ids kept (shorter ones tokenize in microseconds). */
const KEPT_TOKENS_MIN_CHARS = 256;
/** Characters of text whose token ids are kept (about 4 MiB of text and 8 MiB of ids at most). */
const KEPT_TOKENS_CHARS = 4 * 1024 * 1024;
/** How long kept token ids live: an evaluation usually follows its estimate within its queue wait. */
const KEPT_TOKENS_MS = 120_000;

/** A request checked and tokenized, before any encoding (`prepare`). */
type Prepared =
  | { kind: 'nli'; spec: TransformersModelSpec; state: State; questions: Questions; work: number }
  | {
      kind: 'model';
      spec: BuiltinModelSpec;
      state: State;
      questions: Questions;
      stateText: string;
      stateIds: readonly number[];
      rendered: (readonly [string, RenderedQuestion])[];
      questionTokens: Record<string, number>;
      work: number;
    };

/** Default byte budget of the state cache. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('The evaluation was aborted', 'AbortError');
}

class PipelineEngine implements Engine {
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private stateEncodes = 0;
  private readonly exactCounts = { answered: 0, abstained: 0 };
  private readonly stateCache: StateCache;
  private readonly outcomeCache: OutcomeCache;
  /** Token ids of recent long texts, by text (see `tokenizeKept`). */
  private readonly tokens = new LRUCache<string, readonly number[]>({ maxSize: KEPT_TOKENS_CHARS, sizeCalculation: (_ids, text) => text.length + 64, ttl: KEPT_TOKENS_MS });
  /** Models of the `transformers-nli` kind (loaded on first use) and their cache. */
  readonly nli: NliEvaluator;
  /** @internal The pool's workers give it a helper (heads/remote.ts). */
  readonly trainedHeads: TrainedHeadsRunner;

  constructor(
    private readonly encoder: Encoder,
    private readonly tokenizer: Tokenizer,
    private readonly registry: ModelRegistry,
    private readonly config: EngineConfig & { defaultModel: string; cacheBytes: number; exact: boolean; maxRequestWork: number },
  ) {
    this.stateCache = new StateCache(config.cacheBytes);
    this.nli = new NliEvaluator(config.cacheBytes, {
      allowRemoteModels: config.allowRemoteModels === true,
      ...(config.transformersCacheDir ? { cacheDir: config.transformersCacheDir } : {}),
    });
    this.outcomeCache = new OutcomeCache((texts, signal) => encoder.embedTexts(texts.map((t) => this.tokenize(t)), signal));
    // Trained heads encode each question text on its own (token states, not just pooled).
    this.trainedHeads = new TrainedHeadsRunner((text) => this.tokenize(text), (ids, signal) => encoder.encodeState(ids, signal ? { signal } : {}), path.dirname(defaultManifestPath()), {
      encoderBackend: encoder.backend.backend,
    });
  }

  evaluate(...args: unknown[]): Promise<SystemOneResponse> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    const { request, options } = splitEvaluateArguments(args, this.config.defaultModel);
    const run = this.run(request, options);
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  estimateWork(request: unknown): Promise<number> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    try {
      const prepared = this.prepare(request);
      return Promise.resolve(prepared.work);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Everything before any encoding: validation, the model, rendering, tokenizing, the token
   * budgets and the work estimate and cap. Long texts' token ids are kept a while (`tokens`),
   * so an evaluation that follows its estimate does not tokenize again.
   */
  private prepare(body: unknown): Prepared {
    const checked = validateRequest(body);
    if (!checked.ok) throw new RequestValidationError(checked.errors);
    const { state, questions, model } = checked.request;
    const spec = this.registry.spec(model);
    const stateText = renderState(state);
    const stateIds = this.tokenizeKept(stateText);
    const cap = this.config.maxRequestWork;
    if (isTransformersSpec(spec)) {
      // An NLI model reads the whole state once per outcome: estimated, and capped, the same way.
      const outcomeTokens = Object.values(questions).flatMap((q) => renderQuestion(q).outcomes.map((o) => this.tokenizeKept(o).length));
      const work = nliWorkUnits({ stateTokens: stateIds.length, outcomeTokens });
      if (cap > 0 && work > cap) throw new RequestValidationError([tooMuchWork(work, cap)]);
      return { kind: 'nli', spec, state, questions, work };
    }
    const rendered = Object.entries(questions).map(([id, q]) => [id, renderQuestion(q)] as const);
    const questionTokens: Record<string, number> = {};
    for (const [id, r] of rendered) {
      Object.defineProperty(questionTokens, id, { value: this.tokenizeKept(r.text).length, enumerable: true });
    }
    const budget = tokenBudgetErrors(stateIds.length, questionTokens);
    if (budget.length > 0) throw new RequestValidationError(budget);
    const work = workUnits({ stateTokens: stateIds.length, questions: rendered.map(([id, r]) => ({ tokens: questionTokens[id]!, outcomes: r.outcomes.length })) });
    if (cap > 0 && work > cap) throw new RequestValidationError([tooMuchWork(work, cap)]);
    return { kind: 'model', spec, state, questions, stateText, stateIds, rendered, questionTokens, work };
  }

  private async run(body: unknown, options: EvaluateOptions): Promise<SystemOneResponse> {
    const prepared = this.prepare(body);
    if (prepared.kind === 'nli') {
      const { spec, state, questions, work } = prepared;
      options.onWork?.(work);
      throwIfAborted(options.signal);
      // The NLI evaluator counts usage over every question, so it sees them all; the exact
      // stage's answers then replace its own where the state's data decides.
      const response = await this.nli.evaluate(spec, state, questions, options.signal);
      for (const [id, answer] of this.exactAnswers(state, Object.keys(questions), questions)) response.answers[id] = answer;
      return response;
    }
    const { spec, state, questions, stateText, stateIds, rendered, questionTokens, work } = prepared;
    options.onWork?.(work);

    // The exact stage answers what the state's data decides; the model answers the rest.
    const exact = this.exactAnswers(state, rendered.map(([id]) => id), questions);
    const toModel = rendered.filter(([id]) => !exact.has(id));
    const modelAnswers = toModel.length > 0 ? await this.answerWithModel(spec, state, questions, toModel, stateText, stateIds, options) : new Map<string, Answer>();

    const answers: Record<string, Answer> = {};
    let inputTokens = stateIds.length;
    for (const [id] of rendered) {
      Object.defineProperty(answers, id, { value: exact.get(id) ?? modelAnswers.get(id)!, enumerable: true, writable: true, configurable: true });
      inputTokens += questionTokens[id]!;
    }
    return { model: spec.id, answers, usage: { input_tokens: inputTokens, output_tokens: 0 } };
  }

  /** The exact stage's answers, by question id, for the questions the state's data decides (none when it is off). */
  private exactAnswers(state: State, ids: readonly string[], questions: Questions): Map<string, Answer> {
    const exact = new Map<string, Answer>();
    if (!this.config.exact) return exact;
    for (const id of ids) {
      const answer = exactAnswer(state, questions[id]!).answer;
      if (answer) exact.set(id, answer);
    }
    this.exactCounts.answered += exact.size;
    this.exactCounts.abstained += ids.length - exact.size;
    return exact;
  }

  /** The model's answers (encoder and heads) for the questions the exact stage left to it. */
  private async answerWithModel(
    spec: BuiltinModelSpec,
    state: State,
    questions: Questions,
    rendered: (readonly [string, RenderedQuestion])[],
    stateText: string,
    stateIds: readonly number[],
    options: EvaluateOptions,
  ): Promise<Map<string, Answer>> {
    throwIfAborted(options.signal);
    const encoding = await this.stateCache.get(
      spec.id,
      stateText,
      (signal) => this.encodeState(stateIds, spec.heads.kind !== 'zero-shot-similarity', signal),
      options.signal,
    );
    throwIfAborted(options.signal);
    const heads = spec.heads;
    // Pooled outcome embeddings: the zero-shot heads' input, and the trained heads' zero-shot term
    // (which also reads yes/no questions with their criteria swapped: heads/criteria-symmetry.ts).
    const swaps = heads.kind === 'late-interaction' ? swappedRenderings(questions, rendered) : [];
    const outcomeTexts = [...rendered.flatMap(([, r]) => r.outcomes), ...swaps.flatMap((r) => r?.outcomes ?? [])];
    const outcomeVectors =
      heads.kind === 'zero-shot-similarity' || this.trainedHeads.needsOutcomes(heads)
        ? await this.outcomeCache.embed(spec.id, outcomeTexts, options.signal)
        : null;
    if (heads.kind === 'late-interaction') return this.trainedHeads.answerAll(heads, { state, questions, rendered, swaps }, encoding, stateIds, outcomeVectors, options.signal);
    return new Map(rendered.map(([id, r]) => [id, answerQuestion(questions[id]!, r, encoding, r.outcomes.map((text) => outcomeVectors!.get(text)!), heads)]));
  }

  /**
   * Token ids as the encoder sees a canonical text. The vocabulary has no piece for line breaks
   * or tabs (they would become unknown tokens and glue words together), and the encoder was
   * trained on whitespace-folded text, so whitespace runs become single spaces here.
   */
  private tokenize(text: string): number[] {
    return this.tokenizer.encode(flattenWhitespace(text));
  }

  /** `tokenize`, with long texts' ids kept a while (an estimate, then its evaluation); read-only. */
  private tokenizeKept(text: string): readonly number[] {
    if (text.length < KEPT_TOKENS_MIN_CHARS) return this.tokenize(text);
    let ids = this.tokens.get(text);
    if (!ids) {
      ids = this.tokenize(text);
      this.tokens.set(text, ids);
    }
    return ids;
  }

  /**
   * Zero-shot heads read the pooled embedding only: without token states the encoder skips
   * the last projection per token (a sixth of the work) and the cache entry is 2 KiB a token
   * smaller. The cache key holds the versioned model id, so the two kinds never mix.
   */
  private encodeState(ids: readonly number[], tokenStates: boolean, signal: AbortSignal | undefined): Promise<StateEncoding> {
    this.stateEncodes++;
    return this.encoder.encodeState(ids, { tokenStates, ...(signal ? { signal } : {}) });
  }

  listModels() {
    return this.registry.list();
  }

  resolveModel(name: string): string {
    return this.registry.resolve(name);
  }

  countTokens(text: string, model: string = this.config.defaultModel): number {
    const spec = this.registry.spec(model);
    if (!isTransformersSpec(spec)) return this.tokenize(text).length;
    const loaded = this.nli.loaded(spec.id);
    if (!loaded) throw new Error(`Model '${spec.id}' is not loaded yet; evaluate a request with it first`);
    return loaded.countTokens(flattenWhitespace(text));
  }

  /** Counters of both kinds of model added together (the NLI cache has its own budget). */
  stats(): EngineStats {
    const cache = this.stateCache.stats();
    const nli = this.nli.counters();
    return {
      backend: this.encoder.backend.backend,
      tfjsBackend: this.encoder.backend.tfjs,
      backends: this.encoder.backend.tried.map((t) => ({ ...t })),
      reader: this.trainedHeads.readerBackend && { backend: this.trainedHeads.readerBackend.backend, tried: this.trainedHeads.readerBackend.tried.map((t) => ({ ...t })) },
      heads: this.trainedHeads.headsBackend && { backend: this.trainedHeads.headsBackend.backend, tried: this.trainedHeads.headsBackend.tried.map((t) => ({ ...t })) },
      matmul: gemmReady() ? 'evalmodel-gemm' : 'tfjs',
      stateEncodes: this.stateEncodes + nli.stateRuns,
      exact: { ...this.exactCounts, enabled: this.config.exact },
      questionEncodes: this.outcomeCache.passes + this.trainedHeads.passes + nli.pairs,
      encodedTokens: readEncoderWork().tokens,
      cache: { ...cache, hits: cache.hits + nli.hits, misses: cache.misses + nli.misses, entries: cache.entries + nli.entries, bytes: cache.bytes + nli.bytes },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let running evaluations finish before their tensors' weights go away.
    await Promise.allSettled([...this.inFlight]);
    this.stateCache.clear();
    await this.nli.close();
    this.encoder.dispose();
  }
}

/**
 * Loads the encoder, tokenizer and registry once and returns a long-lived engine.
 * @example
 * const engine = await createEngine();
 * const res = await engine.evaluate('The parcel arrived broken.', { q: { type: 'noul', instructions: 'Is the customer unhappy?' } });
 */
export async function createEngine(config: EngineConfig = {}): Promise<Engine> {
  return (await createEngineWithEncoder(config)).engine;
}

/**
 * An engine and its encoder, for an engine pool's worker: the encoder takes windows from, and
 * hands windows to, the other workers' encoders (see encoder/split.ts).
 * @internal
 */
export async function createEngineWithEncoder(config: EngineConfig = {}): Promise<{ engine: Engine; encoder: Encoder; heads: TrainedHeadsRunner }> {
  const full = {
    ...config,
    defaultModel: config.defaultModel ?? 'evalmodel-latest',
    threads: config.threads ?? 1,
    cacheBytes: config.cacheBytes ?? DEFAULT_CACHE_BYTES,
    exact: config.exact ?? true,
    maxRequestWork: config.maxRequestWork ?? DEFAULT_MAX_REQUEST_WORK,
  };
  const registry = registryFor(config);
  registry.resolve(full.defaultModel);
  const [encoder, tokenizer] = await Promise.all([
    Encoder.load({ ...(config.backend ? { backend: config.backend } : {}), threads: full.threads }),
    loadVocabulary().then(engineTokenizer),
  ]);
  const engine = new PipelineEngine(encoder, tokenizer, registry, full);
  // NLI models that the options name are loaded now, so that a missing package or file fails
  // here rather than at the first request (and countTokens works for the default model).
  const preload = new Set([registry.spec(full.defaultModel).id, ...(config.modelDir !== undefined ? [modelDirId(config.modelDir)] : [])]);
  try {
    for (const id of preload) {
      const spec = registry.spec(id);
      if (isTransformersSpec(spec)) await engine.nli.model(spec);
    }
  } catch (error) {
    await engine.close();
    throw error;
  }
  return { engine, encoder, heads: engine.trainedHeads };
}

export type { Questions, State };
