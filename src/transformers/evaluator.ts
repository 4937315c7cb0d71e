/**
 * Evaluation of a validated request on a model of the `transformers-nli` kind: the same
 * canonical rendering, token budgets and usage as the built-in models (counted with this model's
 * tokenizer), then one group of hypothesis runs per question, cached across requests.
 *
 * Why the cache holds whole questions: a cross-encoder has no state encoding to keep (it reads
 * the state and each hypothesis together), so what is worth keeping is the logits of a
 * question's hypotheses against a state, keyed by (model id, state text, the question's sorted
 * hypotheses). A question's hypotheses always run together, in sorted order, so its answer is
 * the same bit for bit whether computed cold, taken from the cache, asked with its options in
 * another order, or asked beside other questions.
 * @module
 */
import { flattenWhitespace, renderQuestion, renderState } from '../canonical/index.js';
import { RequestValidationError } from '../errors.js';
import type { TransformersModelSpec } from '../registry/index.js';
import type { Answer, Questions, State, SystemOneResponse } from '../types.js';
import { tokenBudgetErrors } from '../validation/index.js';
import { answerFromLogits, questionHypotheses, type HypothesisLogits } from './hypotheses.js';
import { NliModel, type TransformersLoadOptions } from './model.js';
import { SharedCache } from '../engine/shared-cache.js';

type Logits = Map<string, HypothesisLogits>;

/** Counters, in the units of the engine's stats. */
export interface NliCounters {
  /** Requests that ran the model over their state (at most one each; none on a full cache hit). */
  stateRuns: number;
  /** Premise/hypothesis pairs run. */
  pairs: number;
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

function sizeOf(value: Logits, key: string): number {
  let n = key.length * 2;
  for (const text of value.keys()) n += text.length * 2 + 16;
  return n;
}

/** Every model of the kind that an engine has used, with their shared cache. */
export class NliEvaluator {
  private readonly models = new Map<string, Promise<NliModel>>();
  private readonly ready = new Map<string, NliModel>();
  /**
   * Logits by (model, state, hypotheses). Concurrent identical questions share one run, which
   * is aborted only when every request waiting on it has been (shared-cache.ts).
   */
  private readonly cache: SharedCache<Logits>;
  private stateRuns = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    cacheBytes: number,
    private readonly loadOptions: TransformersLoadOptions,
  ) {
    this.cache = new SharedCache<Logits>(cacheBytes, sizeOf);
  }

  /** The model, loaded once per engine (a failed load is retried by the next request). */
  model(spec: TransformersModelSpec): Promise<NliModel> {
    let pending = this.models.get(spec.id);
    if (!pending) {
      pending = NliModel.load(spec, this.loadOptions).then((m) => {
        this.ready.set(spec.id, m);
        return m;
      });
      pending.catch(() => this.models.delete(spec.id));
      this.models.set(spec.id, pending);
    }
    return pending;
  }

  /** The model if it has finished loading. */
  loaded(id: string): NliModel | undefined {
    return this.ready.get(id);
  }

  async evaluate(spec: TransformersModelSpec, state: State, questions: Questions, signal?: AbortSignal): Promise<SystemOneResponse> {
    const model = await this.model(spec);
    const stateText = flattenWhitespace(renderState(state));
    const stateTokens = model.countTokens(stateText);
    const rendered = Object.entries(questions).map(([id, q]) => [id, q, renderQuestion(q)] as const);
    const questionTokens: Record<string, number> = {};
    for (const [id, , r] of rendered) Object.defineProperty(questionTokens, id, { value: model.countTokens(flattenWhitespace(r.text)), enumerable: true });
    const budget = tokenBudgetErrors(stateTokens, questionTokens);
    if (budget.length > 0) throw new RequestValidationError(budget);

    let premise: string[] | null = null;
    let ran = false;
    const answers: Record<string, Answer> = {};
    let inputTokens = stateTokens;
    for (const [id, question, r] of rendered) {
      const hypotheses = questionHypotheses(r);
      // Runs under the cache's signal (or this request's, with the cache off).
      const compute = (runSignal: AbortSignal | undefined) => {
        ran = true;
        premise ??= model.tokens(stateText);
        return model.score(premise, hypotheses.texts, runSignal);
      };
      const key = `${spec.id}\u0000${stateText}\u0000${hypotheses.texts.join('\u0000')}`;
      const logits = await this.cache.get(key, compute, signal);
      const answer = answerFromLogits(question, r, hypotheses, logits, {
        noul: spec.temperature?.noul ?? 1,
        choice: spec.temperature?.choice ?? 1,
        score: spec.temperature?.score ?? 1,
      });
      Object.defineProperty(answers, id, { value: answer, enumerable: true, writable: true, configurable: true });
      inputTokens += questionTokens[id]!;
    }
    if (ran) {
      this.stateRuns++;
      this.misses++;
    } else this.hits++;
    return { model: spec.id, answers, usage: { input_tokens: inputTokens, output_tokens: 0 } };
  }

  counters(): NliCounters {
    let pairs = 0;
    for (const m of this.ready.values()) pairs += m.pairs;
    return {
      stateRuns: this.stateRuns,
      pairs,
      hits: this.hits,
      misses: this.misses,
      entries: this.cache.size,
      bytes: this.cache.bytes,
    };
  }

  async close(): Promise<void> {
    this.cache.clear();
    const loaded = await Promise.allSettled([...this.models.values()]);
    await Promise.all(loaded.map((l) => (l.status === 'fulfilled' ? l.value.dispose() : undefined)));
  }
}
