/**
 * The optional peer dependency `@xenova/transformers` (transformers.js 2.x), imported only when
 * a model of the `transformers-nli` kind is used, and the few parts of its API this project
 * calls, typed here so that neither compiling nor using evalmodel needs the package installed.
 * @module
 */

/** The package name; `@huggingface/transformers` (3.x and later) is not supported (see README). */
export const TRANSFORMERS_PACKAGE = '@xenova/transformers';

/** A transformers.js tensor (an onnxruntime tensor with helpers). */
export interface TjsTensor {
  readonly dims: readonly number[];
  readonly data: ArrayLike<number>;
}

/** Options of `from_pretrained` that this project sets. */
export interface PretrainedOptions {
  local_files_only?: boolean;
  quantized?: boolean;
  cache_dir?: string;
  revision?: string;
}

/** A post-processor: adds the special tokens of a pair ([CLS] a [SEP] b [SEP] and the like). */
export type TjsPostProcessor = (
  tokens: string[],
  pair: string[] | null,
  options: { add_special_tokens: boolean },
) => { tokens: string[]; token_type_ids?: number[] };

/** A loaded tokenizer (PreTrainedTokenizer). */
export interface TjsTokenizer {
  encode(text: string, pair?: string | null, options?: { add_special_tokens?: boolean }): number[];
  /** Normalises, pre-tokenises and splits one text into token strings (no special tokens). */
  _encode_text(text: string): string[] | null;
  post_processor: TjsPostProcessor | null;
  model: { convert_tokens_to_ids(tokens: string[]): number[] };
  pad_token_id: number | undefined;
  model_max_length: number | undefined;
}

/** A loaded sequence-classification model. */
export interface TjsClassifier {
  config: { id2label?: Record<string, string>; max_position_embeddings?: number; model_type?: string };
  session: { inputNames: readonly string[] };
  (inputs: Record<string, TjsTensor>): Promise<{ logits: TjsTensor }>;
  dispose?(): Promise<unknown>;
}

/** The module's exports that this project uses. */
export interface TransformersModule {
  AutoTokenizer: { from_pretrained(id: string, options?: PretrainedOptions): Promise<TjsTokenizer> };
  AutoModelForSequenceClassification: { from_pretrained(id: string, options?: PretrainedOptions): Promise<TjsClassifier> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => TjsTensor;
  env: { localModelPath: string; cacheDir: string | null; version?: string };
}

/** The optional package is missing. */
export class TransformersUnavailableError extends Error {
  override name = 'TransformersUnavailableError';
  constructor(model: string, cause: unknown) {
    super(
      `Model '${model}' runs on ${TRANSFORMERS_PACKAGE}, an optional peer dependency that is not installed ` +
        `(npm install ${TRANSFORMERS_PACKAGE}@^2.17.2): ${(cause as Error)?.message ?? String(cause)}`,
    );
  }
}

let loaded: Promise<TransformersModule> | null = null;

/**
 * Imports the package once. The specifier is a variable so that TypeScript neither resolves nor
 * requires it, and bundlers leave it alone.
 */
export function importTransformers(model: string): Promise<TransformersModule> {
  const specifier: string = TRANSFORMERS_PACKAGE;
  loaded ??= (import(specifier) as Promise<TransformersModule>).catch((error: unknown) => {
    loaded = null;
    throw error;
  });
  return loaded.catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new TransformersUnavailableError(model, error);
    throw error;
  });
}
