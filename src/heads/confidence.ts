/**
 * Confidence of a choice or score answer, derived from its probabilities as version 1 clients of
 * the interface expect (the preview's entropy-based value is not used).
 * @module
 */

/** Index of the largest value; ties go to the earliest (option order). */
export function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

function clip01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/**
 * Choice confidence: how far the top probability stands above uniform, (p_max - 1/k) / (1 - 1/k).
 * 0 for a uniform distribution, 1 when all weight is on one option; 1 for a single option.
 */
export function choiceConfidence(probabilities: readonly number[]): number {
  const k = probabilities.length;
  if (k <= 1) return 1;
  const pMax = probabilities[argmax(probabilities)]!;
  return clip01((pMax - 1 / k) / (1 - 1 / k));
}

/**
 * Score confidence: 1 - (sum_i p_i |i - m|) / MAD, where m is the most probable level and MAD the
 * mean distance of the levels from the middle of the scale, clipped to [0, 1]. Spread around
 * the top level lowers it in proportion to how far the weight lies. 1 for a single level.
 */
export function scoreConfidence(probabilities: readonly number[]): number {
  const k = probabilities.length;
  if (k <= 1) return 1;
  const m = argmax(probabilities);
  const middle = (k - 1) / 2;
  let mad = 0;
  for (let i = 0; i < k; i++) mad += Math.abs(i - middle);
  mad /= k;
  let spread = 0;
  for (let i = 0; i < k; i++) spread += probabilities[i]! * Math.abs(i - m);
  return clip01(1 - spread / mad);
}
