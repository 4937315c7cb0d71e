/**
 * Final training step: mixes the zero-shot term (cosine of the pooled state with each pooled
 * "instructions + outcome" text, divided by 0.05, as evalmodel-1.12.0 answers) into the trained
 * logits with one weight per question type, and refits the temperatures. Weights and
 * temperatures are chosen by NLL on the held-out calibration split only (its `fit` half, see
 * calibHalf in data.ts). It runs at the end
 * of `npm run train`, and on its own it updates an existing heads manifest:
 * `node dist/src/training/mix.js [weights/heads-1.13.0.json]`.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { initBackend } from '../encoder/backend.js';
import { headsFromBytes, zeroShotTerm, type HeadsManifest } from '../heads/trained.js';
import type { RenderedQuestion } from '../canonical/index.js';
import { createTokenizer, loadVocabulary } from '../tokenizer/index.js';
import { calibHalf, dataDir, loadCases, repoRoot, splitOf } from './data.js';
import type { EncodingStore } from './encode-cache.js';
import { prepare } from './prepare.js';
import type { Params } from '../heads/late.js';

/** Zero-shot logits of an item's outcomes, as served ({@link zeroShotTerm}), from the encoding cache. */
export function zeroShotLogits(store: EncodingStore, type: RenderedQuestion['type'], stateText: string, outcomes: readonly string[]): number[] {
  return zeroShotTerm(type, store.get(stateText).pooled, outcomes.map((o) => store.get(o).pooled));
}

type Pred = { item: { type: 'noul' | 'choice' | 'score'; gold: number }; logits: number[] };

/** Chooses the mixing weight per type (grid) with temperatures refitted; returns both. */
export function fitMix(
  trained: readonly Pred[],
  zeroShot: readonly number[][],
  fitTemperatures: (preds: Pred[]) => Record<string, number>,
  nllOf: (preds: Pred[], temps: Record<string, number>) => number,
): { mix: Record<string, number>; temperatures: Record<string, number>; preds: Pred[] } {
  const grid = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1];
  const mix: Record<string, number> = {};
  const combine = (w: Record<string, number>) =>
    trained.map((p, i) => ({ item: p.item, logits: p.logits.map((l, k) => l + (w[p.item.type] ?? 0) * zeroShot[i]![k]!) }));
  for (const type of ['noul', 'choice', 'score'] as const) {
    let best = 0;
    let bestLoss = Infinity;
    // Score stays without the term: its outcome texts carry "Level i of n" labels, so the
    // zero-shot term would break the heads' exact mirroring under reversed levels.
    for (const w of type === 'score' ? [0] : grid) {
      const preds = combine({ [type]: w }).filter((p) => p.item.type === type);
      const loss = nllOf(preds, fitTemperatures(preds));
      if (loss < bestLoss - 1e-9) {
        bestLoss = loss;
        best = w;
      }
    }
    mix[type] = best;
  }
  const preds = combine(mix);
  return { mix, temperatures: fitTemperatures(preds), preds };
}

async function main(): Promise<void> {
  const manifestFile = path.resolve(process.argv[2] ?? path.join(repoRoot(), 'weights', 'heads-1.13.0.json'));
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as HeadsManifest;
  await initBackend('wasm');
  const heads = headsFromBytes(manifest, readFileSync(path.resolve(path.dirname(manifestFile), manifest.weights)));
  const { buildExamples, predictEnsemble, fitTemperatures, metrics, meanNll } = await import('./train.js');
  const cases = loadCases(path.join(dataDir(), 'train'));
  const calibCases = cases.filter((c) => splitOf(c) === 'calib' && calibHalf(c) === 'fit');
  const testCases = cases.filter((c) => splitOf(c) === 'test');
  const store = await prepare(cases, Number(process.env.TRAIN_WORKERS ?? 2), [...calibCases, ...testCases]);
  const tokenizer = createTokenizer(await loadVocabulary());
  const result = mixInto(manifest, heads.members, buildExamples(calibCases, store, tokenizer), buildExamples(testCases, store, tokenizer), store, {
    predictEnsemble,
    fitTemperatures,
    metrics,
    meanNll,
  });
  writeFileSync(manifestFile, JSON.stringify(result, null, 2) + '\n');
  process.stderr.write(`[mix] ${JSON.stringify(result.mix)} temperatures ${JSON.stringify(result.temperatures)}\n[mix] held-out test ${JSON.stringify(result.heldOut)}\n`);
}

/** Adds `mix`, refitted temperatures and held-out metrics to a heads manifest. */
export function mixInto(
  manifest: HeadsManifest,
  members: readonly Params[],
  calib: Parameters<typeof import('./train.js').predictEnsemble>[1],
  test: Parameters<typeof import('./train.js').predictEnsemble>[1],
  store: EncodingStore,
  fns: Pick<typeof import('./train.js'), 'predictEnsemble' | 'fitTemperatures' | 'metrics' | 'meanNll'>,
): HeadsManifest {
  const zs = (preds: ReturnType<typeof fns.predictEnsemble>) => preds.map((p) => zeroShotLogits(store, p.item.type, p.item.stateText, p.item.outcomes));
  const calibPreds = fns.predictEnsemble(members, calib);
  const { mix, temperatures } = fitMix(calibPreds, zs(calibPreds), (p) => fns.fitTemperatures(p as never), (p, t) => fns.meanNll(p as never, t));
  const testPreds = fns.predictEnsemble(members, test);
  const testZs = zs(testPreds);
  const mixed = testPreds.map((p, i) => ({ item: p.item, logits: p.logits.map((l, k) => l + (mix[p.item.type] ?? 0) * testZs[i]![k]!) }));
  return {
    ...manifest,
    mix,
    temperatures,
    heldOut: { ...(manifest.heldOut as object), testWithMix: fns.metrics(mixed, temperatures) },
  };
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  // Not awaited at top level: main() imports train.js, which imports this module, and a
  // top-level await here would leave that cycle unsettled (exit code 13).
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
    process.exitCode = 1;
  });
}
