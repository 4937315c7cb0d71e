/**
 * SentencePiece (unigram) tokenizer for the Universal Sentence Encoder lite vocabulary, producing
 * ids identical to the reference tokenizer of `@energetic-ai/embeddings` (a copy of tfjs-models'
 * `universal-sentence-encoder` tokenizer) for every input string.
 *
 * Why not `@huggingface/tokenizers`? The team prefers a well-kept library, so that was tried
 * first: version 0.2.0, a Unigram model built in memory from the same vocabulary (`null` scores as
 * 0, the reserved pieces 1-5 renamed out of reach, unk_id 0) with the NFKC normalizer and the
 * Metaspace pre-tokenizer (`prepend_scheme: 'always'`, `split: false`). Agreement with the
 * reference on 5,000 fast-check strings per arbitrary (seed 42), raw library / library patched
 * (our own "▁" prefixing, empty string -> [], unknown runs merged):
 * `grapheme-ascii` 4891 / 4951, `binary-ascii` 4933 / 4967, `grapheme` 4978 / 5000,
 * `binary` 5000 / 5000, strings over `:/.,;-()0-9 ab▁"'` plus tab and newline 4478 / 4827,
 * concatenated vocabulary words 1703 / 5000. (This implementation: 5000 / 5000 on every one.) The
 * differences that cannot be patched from outside, because they sit inside the library's Viterbi:
 *
 * 1. Zero-score rule. The reference replaces the best candidate at a position unconditionally
 *    while that best is exactly 0 (`best[end] === 0 || score >= best[end]`), so a piece scoring 0
 *    (the seven `null`-scored ones such as `":"`, `"▁:"`, `"://"`, and `":00"`) is overridden by
 *    whatever candidate comes next. Input `":"`: reference `[30, 57]` (`▁`, `:`), library `[604]`
 *    (`▁:`). Of 696 disagreements on 20,000 punctuation/digit strings (seed 7), 690 involve a
 *    colon.
 * 2. Tie rule. On equal scores the reference keeps the LAST candidate (shorter final piece), the
 *    library the FIRST (`score > best`). Input `")555"`: reference `[3208, 4524, 411]`
 *    (`▁)`, `55`, `5`), library `[3208, 411, 4524]` (`▁)`, `5`, `55`).
 * 3. Patchable, but further reasons not to lean on the library's pipeline: Metaspace skips the
 *    prefix when the text already starts with "▁" after replacing spaces (`"▁hello"`: reference
 *    `[30, 2002, 102]`, library `[2002, 102]`; `" "`: reference `[30, 30]`, library `[30]`), and
 *    runs of unknown ids are not merged. The two algorithms also differ where no piece starts at a
 *    position (reference: unknown arc of score 0 only where NO piece starts; library: score
 *    `min - 10` wherever no single-character piece starts) and at unreachable positions
 *    (reference: best score 0, backtracked as id 0; library: no tokens at all); with this
 *    vocabulary every character that occurs in a piece is also a piece of its own, so those stay
 *    latent (they are exercised by the tests with random small vocabularies).
 *
 * So this file implements the reference's algorithm exactly, including its backtracking by
 * `piece.length` (UTF-16 units) over a lattice of code points, over faster structures: a trie on
 * code points with `Map` children and typed arrays for piece ids and scores, and one forward
 * relaxation pass over a typed lattice (`Float64Array` scores, `Int32Array` back-pointers)
 * instead of the reference's per-position `slice` + prefix search (quadratic in input length).
 *
 * Equivalence of the forward pass with the reference's end-position loop: the reference visits,
 * for each end position, its candidate arcs in ascending start position (integer keys of a plain
 * object) and reads `best[start]`, which is final by then. Relaxing forward from each start in
 * ascending order applies the same updates to each end position in the same order, and
 * `best[start]` is final when `start` is reached because only arcs from earlier starts end there.
 * @module
 */

/** The separator SentencePiece uses for a space (U+2581, "▁"). */
const SEPARATOR = '\u2581';

/** How many leading vocabulary entries are reserved symbols and never matched in text. */
const RESERVED_SYMBOLS_COUNT = 6;

/** Id emitted for characters no vocabulary piece starts with. */
const UNKNOWN_ID = 0;

/**
 * The vocabulary as shipped in `vocab.json`: one `[piece, score]` pair per id. A `null` score
 * counts as 0, as it does in the reference (`null + x === x`).
 */
export type Vocabulary = ReadonlyArray<readonly [string, number | null]>;

/** Turns text into the vocabulary ids the Universal Sentence Encoder lite model consumes. */
export interface Tokenizer {
  /**
   * Tokenizes `text` into vocabulary ids, identical to the reference tokenizer: NFKC, a leading
   * "▁", spaces (U+0020 only) replaced by "▁", a maximum-score segmentation, unknown characters as
   * id 0 with consecutive unknowns merged. The empty string gives `[]`.
   */
  encode(text: string): number[];
  /** Number of entries in the vocabulary; every id `encode` returns is below it. */
  readonly vocabSize: number;
}

/**
 * Trie over vocabulary pieces keyed by code point. Node 0 is the root; `children[n]` maps a code
 * point to the child node, `pieceId[n]` is the id of the piece ending at node `n` (or -1) and
 * `pieceScore[n]` its score.
 */
interface Trie {
  readonly children: ReadonlyArray<Map<number, number>>;
  readonly pieceId: Int32Array;
  readonly pieceScore: Float64Array;
}

function buildTrie(vocabulary: Vocabulary): Trie {
  const children: Map<number, number>[] = [new Map()];
  const ids: number[] = [-1];
  const scores: number[] = [0];
  for (let id = RESERVED_SYMBOLS_COUNT; id < vocabulary.length; id++) {
    const entry = vocabulary[id];
    if (entry === undefined) continue;
    const [piece, score] = entry;
    if (piece.length === 0) continue; // the reference's insert loop never marks an empty piece
    let node = 0;
    for (let i = 0; i < piece.length; ) {
      const cp = piece.codePointAt(i) as number;
      i += cp > 0xffff ? 2 : 1;
      const map = children[node] as Map<number, number>;
      let next = map.get(cp);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        ids.push(-1);
        scores.push(0);
        map.set(cp, next);
      }
      node = next;
    }
    // A later duplicate overwrites an earlier one, as in the reference.
    ids[node] = id;
    scores[node] = score ?? 0;
  }
  return { children, pieceId: Int32Array.from(ids), pieceScore: Float64Array.from(scores) };
}

/** Code points of `s`, lone surrogates kept as single units (as `for...of` yields them). */
function toCodePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i) as number;
    i += cp > 0xffff ? 2 : 1;
    out[n++] = cp;
  }
  return out.subarray(0, n);
}

class SentencePieceTokenizer implements Tokenizer {
  readonly vocabSize: number;
  private readonly trie: Trie;
  /** UTF-16 length of each piece: the reference backtracks by `vocabulary[id][0].length`. */
  private readonly backStep: Int32Array;

  constructor(
    vocabulary: Vocabulary,
    private readonly mergeUnknown: boolean,
  ) {
    this.vocabSize = vocabulary.length;
    this.trie = buildTrie(vocabulary);
    this.backStep = new Int32Array(Math.max(1, vocabulary.length));
    for (let id = 0; id < vocabulary.length; id++) {
      // An empty piece would make the reference loop forever; step by one instead.
      this.backStep[id] = Math.max(1, vocabulary[id]?.[0].length ?? 1);
    }
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const symbols = toCodePoints(SEPARATOR + normalized.replaceAll(' ', SEPARATOR));
    const n = symbols.length;
    const { children, pieceId, pieceScore } = this.trie;
    const root = children[0] as Map<number, number>;

    // best[e]: best score of a segmentation ending at e; 0 also means "not reached yet", which
    // the reference's update rule (`best === 0 || score >= best`) conflates on purpose.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let start = 0; start < n; start++) {
      const base = best[start] as number;
      let matched = false;
      let node = root.get(symbols[start] as number);
      let end = start + 1;
      while (node !== undefined) {
        const id = pieceId[node] as number;
        if (id >= 0) {
          matched = true;
          const score = (pieceScore[node] as number) + base;
          const current = best[end] as number;
          if (current === 0 || score >= current) {
            best[end] = score;
            words[end] = id;
          }
        }
        if (end >= n) break;
        node = (children[node] as Map<number, number>).get(symbols[end] as number);
        end++;
      }
      if (!matched) {
        const score = 0 + base;
        const current = best[start + 1] as number;
        if (current === 0 || score >= current) {
          best[start + 1] = score;
          words[start + 1] = UNKNOWN_ID;
        }
      }
    }

    // Backtrack from the end, merging runs of unknowns (direction does not matter for that).
    const reversed: number[] = [];
    const backStep = this.backStep;
    let previousUnknown = false;
    for (let at = n; at > 0; ) {
      const id = words[at] as number;
      if (!(this.mergeUnknown && previousUnknown && id === UNKNOWN_ID)) reversed.push(id);
      previousUnknown = id === UNKNOWN_ID;
      at -= backStep[id] as number;
    }
    return reversed.reverse();
  }
}

/** Options of {@link createTokenizer}. */
export interface TokenizerOptions {
  /**
   * How characters that no vocabulary piece starts with become ids. `'merge'` (the default, the
   * reference tokenizer's rule): a run of them is one unknown id, so 330,000 CJK characters
   * are a handful of tokens. `'per-character'`: each such character (code point) is one
   * unknown id, so token counts, budgets and the encoder's work grow with the text, and
   * texts of different lengths or with different known pieces between unknown runs encode
   * differently. Texts the vocabulary covers give the same ids either way.
   */
  unknown?: 'merge' | 'per-character';
}

/**
 * Builds a tokenizer over `vocabulary` (see {@link loadVocabulary}). Construction walks the whole
 * vocabulary once (a few milliseconds for 8,000 pieces); reuse the result.
 */
export function createTokenizer(vocabulary: Vocabulary, options: TokenizerOptions = {}): Tokenizer {
  return new SentencePieceTokenizer(vocabulary, (options.unknown ?? 'merge') === 'merge');
}
