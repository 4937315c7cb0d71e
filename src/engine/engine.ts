/**
 * The pipeline: validation -> model registry -> canonicalizer -> tokenizer -> encoder (state
 * once, cached) -> per-type heads -> answers with usage. Framework-free; every adapter (HTTP
 * server, CLI, benchmarks, playground) calls this through the `Engine` contract.
 * @module
 */
import path from 'node:path';
import { flattenWhitespace, renderQuestion, renderState } from '../canonical/index.js';
import { Encoder, type StateEncoding } from '../encoder/index.js';
import { EngineClosedError, RequestValidationError } from '../errors.js';
import { answerQuestion, TrainedHeadsRunner } from '../heads/index.js';
import { gemmReady } from '../kernels/gemm.js';
import { defaultManifestPath, ModelRegistry } from '../registry/index.js';
import { createTokenizer, loadVocabulary, type Tokenizer } from '../tokenizer/index.js';
import type { Answer, Questions, State, SystemOneResponse } from '../types.js';
import { tokenBudgetErrors, validateRequest } from '../validation/index.js';
import type { Engine, EngineConfig, EngineStats, EvaluateOptions } from './contract.js';
import { OutcomeCache } from './outcome-cache.js';
import { splitEvaluateArguments } from './arguments.js';
import { StateCache } from './state-cache.js';

/** Default byte budget of the state cache. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('The evaluation was aborted', 'AbortError');
}

class PipelineEngine implements Engine {
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private stateEncodes = 0;
  private readonly stateCache: StateCache;
  private readonly outcomeCache: OutcomeCache;
  /** @internal The pool's workers give it a helper (heads/remote.ts). */
  readonly trainedHeads: TrainedHeadsRunner;

  constructor(
    private readonly encoder: Encoder,
    private readonly tokenizer: Tokenizer,
    private readonly registry: ModelRegistry,
    private readonly config: Required<EngineConfig>,
  ) {
    this.stateCache = new StateCache(config.cacheBytes);
    this.outcomeCache = new OutcomeCache((texts) => encoder.embedTexts(texts.map((t) => this.tokenize(t))));
    // Trained heads encode each question text on its own (token states, not just pooled).
    this.trainedHeads = new TrainedHeadsRunner((text) => this.tokenize(text), (ids) => encoder.encodeState(ids), path.dirname(defaultManifestPath()));
  }

  evaluate(...args: unknown[]): Promise<SystemOneResponse> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    const { request, options } = splitEvaluateArguments(args, this.config.defaultModel);
    const run = this.run(request, options);
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  private async run(body: unknown, options: EvaluateOptions): Promise<SystemOneResponse> {
    const checked = validateRequest(body);
    if (!checked.ok) throw new RequestValidationError(checked.errors);
    const { state, questions, model } = checked.request;
    const spec = this.registry.spec(model);

    const stateText = renderState(state);
    const stateIds = this.tokenize(stateText);
    const rendered = Object.entries(questions).map(([id, q]) => [id, renderQuestion(q)] as const);
    const questionTokens: Record<string, number> = {};
    for (const [id, r] of rendered) {
      Object.defineProperty(questionTokens, id, { value: this.tokenize(r.text).length, enumerable: true });
    }
    const budget = tokenBudgetErrors(stateIds.length, questionTokens);
    if (budget.length > 0) throw new RequestValidationError(budget);

    throwIfAborted(options.signal);
    const encoding = await this.stateCache.get(spec.id, stateText, () => this.encodeState(stateIds, spec.heads.kind !== 'zero-shot-similarity'));
    throwIfAborted(options.signal);
    const heads = spec.heads;
    // Pooled outcome embeddings: the zero-shot heads' input, and the trained heads' zero-shot term.
    const outcomeVectors =
      heads.kind === 'zero-shot-similarity' || this.trainedHeads.needsOutcomes(heads)
        ? await this.outcomeCache.embed(spec.id, rendered.flatMap(([, r]) => r.outcomes))
        : null;
    const trained = heads.kind === 'late-interaction' ? await this.trainedHeads.answerAll(heads, { state, questions, rendered }, encoding, stateIds, outcomeVectors) : null;

    const answers: Record<string, Answer> = {};
    let inputTokens = stateIds.length;
    for (const [id, r] of rendered) {
      Object.defineProperty(answers, id, {
        value:
          heads.kind === 'late-interaction'
            ? trained!.get(id)!
            : answerQuestion(questions[id]!, r, encoding, r.outcomes.map((text) => outcomeVectors!.get(text)!), heads),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      inputTokens += questionTokens[id]!;
    }
    return { model: spec.id, answers, usage: { input_tokens: inputTokens, output_tokens: 0 } };
  }

  /**
   * Token ids as the encoder sees a canonical text. The vocabulary has no piece for line breaks
   * or tabs (they would become unknown tokens and glue words together), and the encoder was
   * trained on whitespace-folded text, so whitespace runs become single spaces here.
   */
  private tokenize(text: string): number[] {
    return this.tokenizer.encode(flattenWhitespace(text));
  }

  /**
   * Zero-shot heads read the pooled embedding only: without token states the encoder skips
   * the last projection per token (a sixth of the work) and the cache entry is 2 KiB a token
   * smaller. The cache key holds the versioned model id, so the two kinds never mix.
   */
  private encodeState(ids: number[], tokenStates: boolean): Promise<StateEncoding> {
    this.stateEncodes++;
    return this.encoder.encodeState(ids, { tokenStates });
  }

  listModels() {
    return this.registry.list();
  }

  resolveModel(name: string): string {
    return this.registry.resolve(name);
  }

  countTokens(text: string): number {
    return this.tokenize(text).length;
  }

  stats(): EngineStats {
    return {
      backend: this.encoder.backend.backend,
      matmul: gemmReady() ? 'evalmodel-gemm' : 'tfjs',
      stateEncodes: this.stateEncodes,
      questionEncodes: this.outcomeCache.passes + this.trainedHeads.passes,
      cache: this.stateCache.stats(),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let running evaluations finish before their tensors' weights go away.
    await Promise.allSettled([...this.inFlight]);
    this.stateCache.clear();
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
  const full: Required<EngineConfig> = {
    defaultModel: config.defaultModel ?? 'evalmodel-latest',
    backend: config.backend ?? (undefined as unknown as Required<EngineConfig>['backend']),
    cacheBytes: config.cacheBytes ?? DEFAULT_CACHE_BYTES,
  };
  const registry = ModelRegistry.load();
  registry.resolve(full.defaultModel);
  const [encoder, tokenizer] = await Promise.all([
    Encoder.load(config.backend ? { backend: config.backend } : {}),
    loadVocabulary().then(createTokenizer),
  ]);
  const engine = new PipelineEngine(encoder, tokenizer, registry, full);
  return { engine, encoder, heads: engine.trainedHeads };
}

export type { Questions, State };
