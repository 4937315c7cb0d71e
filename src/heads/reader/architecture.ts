/**
 * The reader: one description of the question-side model that reads the cached state.
 *
 * The frozen encoder encodes the state once per request (its per-token states are cached) and
 * each question text (instructions, every choice option line, every score level, every noul
 * criterion) on its own, cached by text. The reader is what is trained: a small transformer in
 * which every question text's tokens attend, through learned multi-head attention, over the
 * state's token states and over their own text (option, level and criterion lines also over
 * their question's instructions), followed by per-type readouts:
 *
 * - noul: a yes logit read from the instructions; with criteria, the difference of a score of
 *   the yes-criterion and of the no-criterion instead, so swapping them negates the logit
 *   exactly;
 * - choice: one logit per option from that option's own tokens with the same parameters for
 *   every option; options never see each other, so the answer cannot depend on option order;
 * - score: one logit per level, like choice, plus the level's distance from the middle of the
 *   rubric, which is the same for a level and its mirror image; and an ordinal term s * d * p_k
 *   (`ORDINAL`): p_k = 2k / (K - 1) - 1 the level's signed position, h_k a scalar read from the
 *   level's own line (same parameters for every level), d = sum_k p_k h_k / K the direction of
 *   the rubric (which end its words put high), s an intensity read from the instructions (which
 *   attended over the state). A reversed rubric flips p and d together, so d * p_k of a level's
 *   text is unchanged and the reversed rubric gives the reversed distribution exactly.
 * - field pairs (`FIELD_PAIR`): a question that compares two fields of the state ("How similar
 *   are `draft` and `final`?") gets the cosine c of the two fields' mean token states
 *   (heads/fields.ts); each choice option and score level adds ((4 + a_c) c + (a_h - 2.4)) g_k,
 *   g_k a scalar read from the line's own features (same parameters for every line), a per type
 *   (`FIELD_PAIR_BASE`: at a = 0, 4 (c - 0.6), positive for alike fields). Attention
 *   over the whole state cannot tell how alike two parts of it are; this says it directly. Per
 *   line, so option order and rubric reversal keep their exact symmetries; 0 where no pair exists.
 *
 * Everything here is data: widths, parameter names and shapes. `forward.ts` runs it on tfjs
 * (training and serving), and any other backend follows the same table.
 * @module
 */

/** Width of the encoder's token states. */
export const INPUT = 512;

/** Hyperparameters of a reader; stored in its weight manifest. */
export interface ReaderShape {
  /** Model width. */
  width: number;
  /** Attention heads per layer. */
  heads: number;
  /** Reader layers. */
  layers: number;
  /** Hidden width of the feed-forward blocks. */
  ffn: number;
  /** Hidden width of the readout MLPs. */
  mlp: number;
}

export const DEFAULT_SHAPE: ReaderShape = { width: 128, heads: 4, layers: 2, ffn: 256, mlp: 128 };

/** Readout vector of one text: masked mean and attention-pooled final token states. */
export const readoutWidth = (s: ReaderShape): number => 2 * s.width;

/** Every parameter of a reader, by name, with its shape. Vectors are biases or layer-norm gains. */
export function paramShapes(s: ReaderShape): Record<string, number[]> {
  const d = s.width;
  const r = readoutWidth(s);
  const out: Record<string, number[]> = {
    // Input projections: the text side also gets a learned vector times "this token occurs in
    // the state"; the state side is projected once per request and shared by every question.
    'in.text.w': [INPUT, d],
    'in.text.b': [d],
    'in.text.match': [d],
    // ... and learned vectors times the token's best and soft-maximum cosine with the state's
    // tokens (parameter-free alignment, as the first trained heads read it): a signal of how
    // well each question word is supported that holds from the first step.
    'in.text.best': [d],
    'in.text.soft': [d],
    'in.state.w': [INPUT, d],
    'in.state.b': [d],
    // An outcome line's rows get this projection of its instructions' mean row added.
    'in.context': [d, d],
  };
  for (let l = 0; l < s.layers; l++) {
    const p = `l${l}.`;
    Object.assign(out, {
      [`${p}ln1.g`]: [d],
      [`${p}ln1.b`]: [d],
      [`${p}q`]: [d, d],
      [`${p}sk`]: [d, d],
      [`${p}sv`]: [d, d],
      // Per head: added to the attention logit of a state token that occurs in the text.
      [`${p}match`]: [s.heads],
      [`${p}o`]: [d, d],
      [`${p}ln2.g`]: [d],
      [`${p}ln2.b`]: [d],
      [`${p}f1`]: [d, s.ffn],
      [`${p}f1b`]: [s.ffn],
      [`${p}f2`]: [s.ffn, d],
      [`${p}f2b`]: [d],
    });
  }
  Object.assign(out, {
    'out.ln.g': [d],
    'out.ln.b': [d],
    'out.pool': [d, 1],
    // noul without criteria: instructions' readout -> yes logit
    'noul.w1': [r, s.mlp],
    'noul.b1': [s.mlp],
    'noul.w2': [s.mlp, 1],
    'noul.b2': [1],
    // noul criteria, choice options and score levels: [line, line * instructions, instructions]
    'crit.w1': [3 * r, s.mlp],
    'crit.b1': [s.mlp],
    'crit.w2': [s.mlp, 1],
    'choice.w1': [3 * r, s.mlp],
    'choice.b1': [s.mlp],
    'choice.w2': [s.mlp, 1],
    // + |position - middle| and the level count
    'score.w1': [3 * r + 2, s.mlp],
    'score.b1': [s.mlp],
    'score.w2': [s.mlp, 1],
    // The ordinal term: h_k from [line, line * instructions, instructions] (no output bias: a
    // constant added to every h_k cancels in d), s from the instructions' readout.
    'ord.h.w1': [3 * r, s.mlp],
    'ord.h.b1': [s.mlp],
    'ord.h.w2': [s.mlp, 1],
    'ord.s.w1': [r, s.mlp],
    'ord.s.b1': [s.mlp],
    'ord.s.w2': [s.mlp, 1],
    'ord.s.b2': [1],
    // The field-pair term: g_k from [line, line * instructions, instructions] (no output bias: a
    // constant added to every g_k of a question cancels in its softmax), and per type (a_c, a_h),
    // stored as differences from FIELD_PAIR_BASE.
    'pair.g.w1': [3 * r, s.mlp],
    'pair.g.b1': [s.mlp],
    'pair.g.w2': [s.mlp, 1],
    'pair.choice': [2],
    'pair.score': [2],
  });
  return out;
}

/**
 * Prefix of the ordinal term's parameters. A weight file written before they existed (its
 * manifest lacks `ordinal: true`) reads them as zeros, which makes the term exactly 0: such a
 * reader gives the answers it gave before the term existed.
 */
export const ORDINAL = 'ord.';

/**
 * Prefix of the field-pair term's parameters; a weight file whose manifest lacks
 * `fieldPair: true` reads them as zeros, which makes the term exactly 0.
 */
export const FIELD_PAIR = 'pair.';

/**
 * The field-pair term's coefficients at a = 0: 4 (c - 0.6). Cosines of unrelated texts' mean
 * token states lie near 0.3 and a copy's at 1 (the heads' pair term reads them alike), so the
 * term starts with the sign of "alike" and a gain that gives g a gradient from the first step;
 * g's last layer starts at zero, which makes the term exactly 0 until trained. (A first run with
 * both coefficients at zero and a small random g barely moved them in 2,500 steps: pair questions
 * are a few percent of the data, and a product of two small factors learns slowly.)
 */
export const FIELD_PAIR_BASE: readonly [number, number] = [4, -2.4];

/**
 * Parameters that start as a copy of another (training's warm start): the state's projections
 * start equal to the text's, so that from the first step a text token's query meets the keys of
 * the state tokens most like it, and attention reads the state where the question's words land.
 */
export function tiedAtInit(s: ReaderShape): Record<string, string> {
  const out: Record<string, string> = { 'in.state.w': 'in.text.w' };
  for (let l = 0; l < s.layers; l++) out[`l${l}.sk`] = `l${l}.q`;
  return out;
}

/** How a parameter starts: 'zeros', 'ones' (layer-norm gains) or a normal with this deviation. */
export function initOf(name: string, shape: readonly number[]): 'zeros' | 'ones' | number {
  if (name.endsWith('.g')) return 'ones';
  if (shape.length === 1) return 'zeros';
  // Residual branches start closed, so the first steps train the input projections and
  // readouts on a well-conditioned network, and each layer opens as it pays.
  if (/^l\d+\.(o|f2)$/.test(name)) return 'zeros';
  if (name === 'out.pool') return 'zeros';
  // Readouts start at zero: the reader's logits are a correction added to the shipped heads'
  // log-probabilities (`ReaderQuestion.base`), so its first step reproduces those heads.
  // The ordinal term's h is the exception: s's last layer at zero already makes the term 0,
  // and a small random h gives s a gradient from the first step (with both at zero, neither
  // would ever move).
  if (name === 'ord.h.w2') return 0.1 * Math.sqrt(1 / shape[0]!);
  if (/\.w2$/.test(name)) return 'zeros';
  return Math.sqrt(1 / shape[0]!);
}

/**
 * The heads whose answers the reader corrects: each question's logits are those heads'
 * log-probabilities plus the reader's readout (see `ReaderQuestion.base`).
 */
export const BASE_HEADS = 'heads-1.13.0';

/** Logits are bounded to ±BOUND (a soft clip) before softmax, in training and serving alike. */
export const BOUND = 15;
