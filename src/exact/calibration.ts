/**
 * Probability of the decided outcome when the exact stage answers. Fitted on the calibration
 * split of the training corpus (src/training/data.ts: `splitOf(case) === 'calib'`) as the
 * precision where the stage fired, pooled over question types (the split is small: 28
 * firings, 24 noul and 4 score, all correct), with add-one smoothing, (correct + 1) / (fired + 2):
 * `node dist/bench/accuracy/exact.js ../shared/data/train --split calib --fit`.
 * An exact result is wrong only when the question meant something other than its plain
 * reading, which does not depend on the question's type.
 * @module
 */
export const EXACT_PROBABILITY = 0.967;
