/**
 * Text sanitising for the canonical form: every caller-supplied string (state text, field
 * names, option names, descriptions) passes through here before it is laid out.
 *
 * The goal is that the encoder sees the caller's words and nothing else: no text a caller
 * writes can pose as a tokenizer control piece, and invisible control characters cannot
 * change the rendering. Beyond that the text is left alone (no lowercasing, no trimming,
 * no punctuation changes).
 * @module
 */

/**
 * SentencePiece's word marker. The tokenizer turns every space into it, so a literal marker
 * in the input would be indistinguishable from a space to the model: make that explicit.
 */
const WORD_MARKER = /\u2581/g;

/**
 * Line separators other than "\n". NEL (U+0085) is listed here rather than stripped with the
 * other C1 controls because some producers use it as a real line break.
 */
const LINE_BREAKS = /\r\n|[\r\u0085\u2028\u2029]/g;

/** C0 and C1 control characters except tab (U+0009) and newline (U+000A), plus DEL. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * The vocabulary's reserved pieces `<s>` and `</s>` (ids 1 and 2). A space before `>` keeps the
 * characters visible while guaranteeing the exact piece can never be formed.
 */
const SENTENCE_TAGS = /<(\/?)s>/g;

/** The vocabulary's reserved `extra_token_id_N` pieces (ids 3 to 5, and any future N). */
const EXTRA_TOKENS = /extra_token_id_(\d+)/g;

/** Runs of two or more U+0020 spaces. */
const SPACE_RUNS = / {2,}/g;

/**
 * Sanitises one caller-supplied string for the canonical form.
 *
 * Steps, in order:
 * 1. Line endings: CRLF, CR, NEL, U+2028 and U+2029 become "\n".
 * 2. Control characters other than "\n" and "\t" are removed.
 * 3. Unicode NFKC. The tokenizer applies NFKC anyway, so this does not change what the encoder
 *    sees; doing it before the steps below means they also catch look-alikes (a full-width
 *    `＜ｓ＞` becomes `<s>` only after NFKC, and no-break or ideographic spaces become U+0020,
 *    which the space collapsing then covers). It comes after control removal because removing
 *    a control can bring a letter and a combining mark together, which NFKC then composes:
 *    the other order would not be a fixed point.
 * 4. The SentencePiece word marker U+2581 becomes a space.
 * 5. Reserved pieces are neutralised: `<s>` becomes `<s >`, `</s>` becomes `</s >`,
 *    `extra_token_id_7` becomes `extra token id 7`.
 * 6. Runs of spaces collapse to one space.
 *
 * The result is a fixed point: `sanitizeText(sanitizeText(s)) === sanitizeText(s)`.
 */
export function sanitizeText(text: string): string {
  return text
    .replace(LINE_BREAKS, '\n')
    .replace(CONTROLS, '')
    .normalize('NFKC')
    .replace(WORD_MARKER, ' ')
    .replace(SENTENCE_TAGS, '<$1s >')
    .replace(EXTRA_TOKENS, 'extra token id $1')
    .replace(SPACE_RUNS, ' ');
}

/**
 * Sanitises a name used as a label (an object key, an option name) so that it stays on one
 * line: a label that spanned lines would break the `name: value` layout and make the following
 * text look like a separate field.
 */
export function sanitizeLabel(name: string): string {
  return sanitizeText(name).replace(/[\n\t]+/g, ' ').replace(SPACE_RUNS, ' ');
}

/**
 * Collapses every run of whitespace (newlines and tabs included) into one space and trims the
 * ends.
 *
 * Not used by the canonical form itself, which keeps line structure so that the text stays
 * readable and labelled. It exists for the stage that feeds the encoder: the vocabulary has no
 * piece for "\n" or "\t" (the reference tokenizer turns each into an unknown id and glues the
 * next word to it without a word marker), and the model was trained with SentencePiece's
 * `nmt_nfkc` normalisation, which folds such whitespace into single spaces. Applying this
 * before tokenising reproduces the input distribution the model saw in training.
 */
export function flattenWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
