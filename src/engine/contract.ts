/**
 * The engine's public contract: what `createEngine` returns. Adapters (HTTP server, CLI,
 * benchmarks, docs playground) depend on this interface only.
 * @module
 */
import type { RegistryManifest } from '../registry/index.js';
import type { ModelMetadataList, Questions, State, SystemOneResponse } from '../types.js';

/**
 * Names of the backends the encoder can run on, in order of preference: native onnxruntime
 * (the optional `onnxruntime-node` package), then the tfjs backends (tfjs-node, WebAssembly,
 * plain JavaScript).
 */
export type BackendName = 'onnxruntime-node' | 'tensorflow' | 'wasm' | 'cpu';

/** The tfjs backends (the heads always run on one of them). */
export type TfjsBackendName = Exclude<BackendName, 'onnxruntime-node'>;

/** Options of a long-lived engine. */
export interface EngineConfig {
  /** Model used when a request names none. Default `evalmodel-latest`. */
  defaultModel?: string;
  /**
   * Run the encoder on this backend only (throws when it cannot start) instead of the first
   * that starts and passes its self-test (onnxruntime-node, tfjs-node, wasm, cpu).
   */
  backend?: BackendName;
  /** onnxruntime-node's intra-op threads for one encoder pass. Default 1 (one core per engine). */
  threads?: number;
  /**
   * Byte budget of the cross-request state cache. Default 64 MiB; 0 disables it. Models of the
   * `transformers-nli` kind keep their own cache (question logits per state) with the same budget.
   */
  cacheBytes?: number;
  /**
   * The model registry: a manifest file's path (model folders in it are relative to its folder)
   * or a parsed manifest (relative to the working directory). Default `weights/manifest.json`.
   */
  manifest?: string | RegistryManifest;
  /**
   * A model folder in the transformers.js layout to add to the registry, with the id, alias and
   * options of its `evalmodel.json` (default `evalmodel-0.1.0`, alias `evalmodel-nli`). It is
   * loaded with the engine. Needs the optional peer dependency `@xenova/transformers`.
   */
  modelDir?: string;
  /**
   * Let models named by a hub id be downloaded by transformers.js. Default false: the engine
   * reads local folders and transformers.js' existing cache only, and never reaches the network.
   */
  allowRemoteModels?: boolean;
  /** transformers.js' download cache folder for hub ids (default: its own). */
  transformersCacheDir?: string;
  /**
   * Answer questions that the state's data decides (numbers, dates, fields) exactly, before the
   * model (docs/exact-answers.md). Default true; false sends every question to the model.
   */
  exact?: boolean;
  /**
   * Most work one request may cost, in work units (state-token equivalents, see
   * `workUnits`); a request estimated above it is refused with a 422 `too_much_work` before
   * any encoding. Default 100,000 (about 50 s of one core); 0 or Infinity turns the cap off.
   */
  maxRequestWork?: number;
}

/** Per-call options. */
export interface EvaluateOptions {
  /**
   * Aborts the evaluation: the state's encoding stops at its next window boundary (about every
   * 256 tokens), and the call rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * Called once the request is validated and tokenized, before any encoding, with its
   * estimated work in work units (the HTTP server charges the key's work bucket with it).
   */
  onWork?: (units: number) => void;
}

/** Counters of the cross-request state cache. */
export interface CacheStats {
  /** Requests whose state encoding came from the cache or from a concurrent request's pass. */
  hits: number;
  /** Requests that encoded their state. */
  misses: number;
  /** States held now. */
  entries: number;
  /** Bytes held now. */
  bytes: number;
  /** The byte budget; 0 means the cache is off. */
  budgetBytes: number;
}

/** Counters of the engine's work, for tests and monitoring. */
export interface EngineStats {
  /** Backend that runs the encoder. */
  backend: BackendName;
  /** The tfjs backend the heads run on (the encoder too, unless `backend` is onnxruntime-node). */
  tfjsBackend: TfjsBackendName;
  /** Every backend tried, in order of preference, with the reason each one passed over did not start. */
  backends: { name: BackendName; error?: string }[];
  /**
   * What runs the trained reader (null until a request has used a model with one):
   * onnxruntime-node where the encoder runs there and the reader's graph passed its self-test
   * against the tfjs forward pass, else tfjs; `tried` gives the reason for a fallback.
   */
  reader: { backend: 'onnxruntime-node' | 'tfjs'; tried: { name: 'onnxruntime-node' | 'tfjs'; error?: string }[] } | null;
  /**
   * What runs the trained late-interaction heads (null until a request has used them):
   * onnxruntime-node where the encoder runs there and the heads' graphs passed their self-test
   * against the tfjs path, else tfjs; `tried` gives the reason for a fallback.
   */
  heads: { backend: 'onnxruntime-node' | 'tfjs'; tried: { name: 'onnxruntime-node' | 'tfjs'; error?: string }[] } | null;
  /**
   * What runs the tfjs matrix products: `evalmodel-gemm`, our WebAssembly kernel (on the wasm
   * backend, where its self-test passed), or `tfjs`, the backend's own.
   */
  matmul: 'evalmodel-gemm' | 'tfjs';
  /**
   * Encoder passes over state text (one per request at most, zero on a cache hit); for an NLI
   * cross-encoder, requests that ran it over their state.
   */
  stateEncodes: number;
  /** Encoder passes over question text; for an NLI cross-encoder, premise/hypothesis pairs run. */
  questionEncodes: number;
  /** The exact-answer stage: whether it is on, questions it answered, questions it left to the model. */
  exact: { enabled: boolean; answered: number; abstained: number };
  /**
   * Tokens the encoder has run through (states, question texts, windows encoded for a peer):
   * the work done, including work of requests that were aborted midway.
   */
  encodedTokens: number;
  /** The cross-request state cache. */
  cache: CacheStats;
}

/** A loaded engine. Safe to call concurrently. */
export interface Engine {
  /**
   * Evaluates a request body. Validates it first; throws `RequestValidationError` (422 body in
   * `.detail`) or `UnknownModelError`; never throws anything else for bad input.
   */
  evaluate(request: unknown, options?: EvaluateOptions): Promise<SystemOneResponse>;
  /** Same, with the three fields given separately. */
  evaluate(state: State, questions: Questions, model?: string, options?: EvaluateOptions): Promise<SystemOneResponse>;
  /**
   * The work `evaluate(request)` would cost, in work units (state-token equivalents, see
   * `workUnits`), from the checks it runs before any encoding: rejects as `evaluate` would
   * (`RequestValidationError`, with `too_much_work` over the engine's cap; `UnknownModelError`).
   * The HTTP server admits requests to its queue by this. Long texts' token ids are kept a
   * while, so the evaluation that follows does not tokenize them again. Models of the
   * `transformers-nli` kind are not estimated (0). Optional for engines of your own.
   */
  estimateWork?(request: unknown): Promise<number>;
  /** The model names a caller may send (the aliases), as `GET /v1/models` returns them. */
  listModels(): ModelMetadataList;
  /** Resolves an alias or versioned id to the versioned id, or throws `UnknownModelError`. */
  resolveModel(name: string): string;
  /**
   * Counts tokens the way `usage.input_tokens` does, with the tokenizer of `model` (default: the
   * engine's default model; a `transformers-nli` model must have been loaded by then).
   */
  countTokens(text: string, model?: string): number;
  /** Work counters and cache statistics. */
  stats(): EngineStats;
  /** Frees the weights and tensors. Later calls throw `EngineClosedError`. */
  close(): Promise<void>;
}
