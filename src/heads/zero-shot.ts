/**
 * Zero-shot heads: the probability of each outcome is a softmax over the cosine similarity of
 * the state's embedding to each rendered outcome ("<instructions> Answer: <option>"), divided by
 * a temperature. No trained parameters; trained heads replace these in a later model.
 * @module
 */

/** Cosine similarity of two unit-length vectors is their dot product. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Logits of each outcome given the state embedding. */
export function similarityLogits(state: Float32Array, outcomes: readonly Float32Array[], temperature: number): number[] {
  return outcomes.map((o) => dot(state, o) / temperature);
}
