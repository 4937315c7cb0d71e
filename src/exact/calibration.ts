/**
 * Probability of the decided outcome when the stage answers, per question type. Fitted on the
 * calibration split of the training corpus (src/training/data.ts `splitOf(...) === 'calib'`) as
 * the precision where the stage fired, with add-one smoothing (correct + 1) / (fired + 2):
 * `node dist/bench/accuracy/exact.js ../shared/data/train --split calib --fit`.
 * @module
 */
export const EXACT_PROBABILITY = { noul: 0.97, choice: 0.97, score: 0.97 } as const;
