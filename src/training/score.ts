/** The JevBench item score: 1/|winners| when gold is among the options within 1e-9 of the top. */
export function itemScoreOf(probs: readonly number[], gold: number): number {
  const max = Math.max(...probs);
  const winners = probs.filter((p) => p >= max - 1e-9).length;
  return probs[gold]! >= max - 1e-9 ? 1 / winners : 0;
}
