/**
 * One loaded NLI cross-encoder: its tokenizer, its ONNX session (through transformers.js), which
 * output is entailment and which contradiction, and the runs of hypothesis batches.
 *
 * Loading is offline unless the engine allows remote models: a local folder is always read
 * with `local_files_only`, and a hub id too unless remote loading is on (then transformers.js
 * fetches it and keeps it in its file cache).
 * @module
 */
import path from 'node:path';
import type { TransformersModelSpec } from '../registry/index.js';
import { checkModelFolder, folderQuantized } from './folder.js';
import type { HypothesisLogits } from './hypotheses.js';
import { importTransformers, type TjsClassifier, type TjsTokenizer, type TransformersModule } from './package.js';
import { padBatch, pairRows, tokenStrings, type PairRow } from './pairs.js';

/** How to load models of the `transformers-nli` kind. */
export interface TransformersLoadOptions {
  /** Let a hub id be downloaded (default false: only local folders and transformers.js' cache). */
  allowRemoteModels?: boolean;
  /** transformers.js' download cache folder (default: its own). */
  cacheDir?: string;
}

/** Longest pair when neither the manifest nor the tokenizer says (BERT-family position tables). */
const DEFAULT_MAX_LENGTH = 512;
const DEFAULT_BATCH = 16;

/** Index of the label whose name matches, by the manifest's name or by the usual MNLI names. */
function labelIndex(id2label: Record<string, string>, configured: string | undefined, patterns: RegExp[], role: string, model: string): number {
  const entries = Object.entries(id2label).map(([i, name]) => [Number(i), name] as const);
  const found =
    configured !== undefined
      ? entries.find(([, name]) => name === configured)
      : patterns.map((p) => entries.find(([, name]) => p.test(name))).find((e) => e !== undefined);
  if (!found) {
    const names = entries.map(([, n]) => `'${n}'`).join(', ');
    throw new Error(`Model '${model}': no ${role} label among ${names || 'none (config.json has no id2label)'}; name it in the manifest's 'labels'`);
  }
  return found[0];
}

/** Where transformers.js finds a model, and the options that keep it offline unless allowed. */
async function locate(spec: TransformersModelSpec, options: TransformersLoadOptions) {
  const lib = await importTransformers(spec.id);
  const remote = options.allowRemoteModels === true;
  let id: string;
  let quantized: boolean;
  if (spec.path !== undefined) {
    checkModelFolder(spec.path, spec.quantized);
    // transformers.js joins its localModelPath with the id as strings; a relative id reaches
    // any folder without changing that process-wide setting.
    id = path.relative(lib.env.localModelPath, spec.path).split(path.sep).join('/');
    quantized = folderQuantized(spec.path, spec.quantized);
  } else {
    id = spec.hub!;
    quantized = spec.quantized ?? true;
  }
  const common = { local_files_only: spec.path !== undefined || !remote, ...(options.cacheDir ? { cache_dir: options.cacheDir } : {}) };
  return { lib, id, quantized, common };
}

/** Token counting with a model's tokenizer alone (the engine pool's thread has no model). */
export async function loadTokenCounter(spec: TransformersModelSpec, options: TransformersLoadOptions = {}): Promise<(text: string) => number> {
  const { lib, id, common } = await locate(spec, options);
  const tokenizer = await lib.AutoTokenizer.from_pretrained(id, common);
  return (text) => tokenizer.encode(text, null, { add_special_tokens: false }).length;
}

export class NliModel {
  /** Model runs (batches) so far. */
  runs = 0;
  /** Pairs run so far. */
  pairs = 0;

  private constructor(
    readonly spec: TransformersModelSpec,
    private readonly lib: TransformersModule,
    private readonly tokenizer: TjsTokenizer,
    private readonly classifier: TjsClassifier,
    private readonly entailment: number,
    private readonly contradiction: number,
    readonly maxLength: number,
  ) {}

  /** Loads the tokenizer and the ONNX model; throws with the reason (missing package, files, labels). */
  static async load(spec: TransformersModelSpec, options: TransformersLoadOptions = {}): Promise<NliModel> {
    const { lib, id, quantized, common } = await locate(spec, options);
    const [tokenizer, classifier] = await Promise.all([
      lib.AutoTokenizer.from_pretrained(id, common),
      lib.AutoModelForSequenceClassification.from_pretrained(id, { ...common, quantized }),
    ]);
    const id2label = classifier.config.id2label ?? {};
    const entailment = labelIndex(id2label, spec.labels?.entailment, [/^entail/i], 'entailment', spec.id);
    const contradiction = labelIndex(id2label, spec.labels?.contradiction, [/^contradict/i, /^not.?entail/i], 'contradiction', spec.id);
    const limits = [tokenizer.model_max_length, classifier.config.max_position_embeddings, DEFAULT_MAX_LENGTH];
    const maxLength = spec.maxLength ?? Math.min(...limits.filter((n): n is number => typeof n === 'number' && n > 0));
    return new NliModel(spec, lib, tokenizer, classifier, entailment, contradiction, maxLength);
  }

  /** Token strings of a text as this model's tokenizer splits it, without special tokens. */
  tokens(text: string): string[] {
    return tokenStrings(this.tokenizer, text);
  }

  /** Token count of a text, without special tokens: what usage and the budgets count. */
  countTokens(text: string): number {
    return this.tokenizer.encode(text, null, { add_special_tokens: false }).length;
  }

  /**
   * Logits of each hypothesis against the premise. Rows run in the given order, `batchSize`
   * rows a run; a premise longer than one window is read in windows, and a hypothesis takes the
   * logits of the window that entails it most (the state supports it if any part does).
   */
  async score(premise: readonly string[], hypotheses: readonly string[], signal?: AbortSignal): Promise<Map<string, HypothesisLogits>> {
    const rows: { hypothesis: number; row: PairRow }[] = [];
    hypotheses.forEach((text, hypothesis) => {
      for (const row of pairRows(this.tokenizer, premise, this.tokens(text), this.maxLength)) rows.push({ hypothesis, row });
    });
    const best: (HypothesisLogits | null)[] = hypotheses.map(() => null);
    const batch = this.spec.batchSize ?? DEFAULT_BATCH;
    for (let start = 0; start < rows.length; start += batch) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('The evaluation was aborted', 'AbortError');
      const chunk = rows.slice(start, start + batch);
      const logits = await this.run(chunk.map((r) => r.row));
      chunk.forEach(({ hypothesis }, i) => {
        const current = best[hypothesis];
        if (!current || logits[i]!.entailment > current.entailment) best[hypothesis] = logits[i]!;
      });
    }
    return new Map(hypotheses.map((text, i) => [text, best[i]!]));
  }

  private async run(rows: PairRow[]): Promise<HypothesisLogits[]> {
    const padded = padBatch(rows, this.tokenizer.pad_token_id ?? 0);
    const dims = [padded.rows, padded.length];
    const all: Record<string, BigInt64Array> = {
      input_ids: padded.inputIds,
      attention_mask: padded.attentionMask,
      token_type_ids: padded.tokenTypeIds,
    };
    // Exactly the inputs the graph declares (DistilBERT and RoBERTa exports have no token types).
    const inputs = Object.fromEntries(
      this.classifier.session.inputNames.filter((n) => n in all).map((n) => [n, new this.lib.Tensor('int64', all[n]!, dims)]),
    );
    const { logits } = await this.classifier(inputs);
    this.runs++;
    this.pairs += rows.length;
    const width = logits.dims[1]!;
    return rows.map((_, r) => ({ entailment: logits.data[r * width + this.entailment]!, contradiction: logits.data[r * width + this.contradiction]! }));
  }

  async dispose(): Promise<void> {
    await this.classifier.dispose?.();
  }
}
