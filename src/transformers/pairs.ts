/**
 * Premise/hypothesis pairs as model inputs. A cross-encoder reads both texts in one window of
 * at most `maxLength` tokens, special tokens included; the hypothesis (the question's side) is
 * always kept whole, and a state too long for the rest of the window is read in consecutive
 * windows, each paired with the same hypothesis. The tokenizer's own post-processor adds the
 * model's special tokens and segment ids ([CLS] a [SEP] b [SEP], <s> a </s></s> b </s>, ...).
 * @module
 */
import type { TjsTokenizer } from './package.js';

/** One model input row. */
export interface PairRow {
  ids: number[];
  typeIds: number[];
}

/** Fewest premise tokens a window keeps, however long the hypothesis. */
const MIN_PREMISE_TOKENS = 16;

/** Token strings of a text, without special tokens. */
export function tokenStrings(tokenizer: TjsTokenizer, text: string): string[] {
  return tokenizer._encode_text(text) ?? [];
}

function postProcess(tokenizer: TjsTokenizer, a: string[], b: string[]): { tokens: string[]; typeIds: number[] } {
  if (!tokenizer.post_processor) return { tokens: [...a, ...b], typeIds: [...a.map(() => 0), ...b.map(() => 1)] };
  const out = tokenizer.post_processor(a, b, { add_special_tokens: true });
  return { tokens: out.tokens, typeIds: out.token_type_ids ?? out.tokens.map(() => 0) };
}

/** How many special tokens the model adds to a pair. */
export function pairOverhead(tokenizer: TjsTokenizer): number {
  return postProcess(tokenizer, [], []).tokens.length;
}

/**
 * The rows of one hypothesis against a premise: the premise cut into windows that each leave
 * room for the whole hypothesis (a hypothesis so long that fewer than 16 premise tokens would
 * fit is cut at its end instead). An empty premise gives one row.
 */
export function pairRows(tokenizer: TjsTokenizer, premise: readonly string[], hypothesis: readonly string[], maxLength: number): PairRow[] {
  const room = maxLength - pairOverhead(tokenizer);
  const hyp = hypothesis.slice(0, Math.max(0, room - Math.min(MIN_PREMISE_TOKENS, premise.length)));
  const window = Math.max(1, room - hyp.length);
  const rows: PairRow[] = [];
  for (let start = 0; start === 0 || start < premise.length; start += window) {
    const { tokens, typeIds } = postProcess(tokenizer, premise.slice(start, start + window), [...hyp]);
    rows.push({ ids: tokenizer.model.convert_tokens_to_ids(tokens), typeIds });
  }
  return rows;
}

/** A batch as int64 arrays of shape [rows, longest row], right-padded with the pad token. */
export interface PaddedBatch {
  rows: number;
  length: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
}

/** Pads rows to the longest; padding has attention 0, so it never changes a row's result's meaning. */
export function padBatch(rows: readonly PairRow[], padId: number): PaddedBatch {
  const length = Math.max(...rows.map((r) => r.ids.length));
  const size = rows.length * length;
  const inputIds = new BigInt64Array(size).fill(BigInt(padId));
  const attentionMask = new BigInt64Array(size);
  const tokenTypeIds = new BigInt64Array(size);
  rows.forEach((row, r) => {
    row.ids.forEach((id, t) => {
      inputIds[r * length + t] = BigInt(id);
      attentionMask[r * length + t] = 1n;
      tokenTypeIds[r * length + t] = BigInt(row.typeIds[t] ?? 0);
    });
  });
  return { rows: rows.length, length, inputIds, attentionMask, tokenTypeIds };
}
