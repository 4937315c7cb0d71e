/**
 * Rendering of one question into its instructions, its outcome texts and its full text.
 * @module
 */
import type { Question, QuestionType } from '../types.js';
import { renderInstructions, resolveReferences } from './instructions.js';
import { labelledContent } from './render-value.js';
import { sanitizeLabel } from './sanitize.js';

/** A question rendered to text, ready for the tokenizer. */
export interface RenderedQuestion {
  /** The question's type, copied from the input. */
  type: QuestionType;
  /**
   * The question text with structured-instruction data fields rendered under their names
   * (question text first, then one `name: value` line or block per data field). Empty when
   * `instructions` is null or absent.
   */
  instructions: string;
  /**
   * Outcome keys in answer order: noul `["true", "false"]`; choice the option names in the
   * criteria's key order, exactly as given (not sanitised, since they key the answer); score
   * `"0"` to `"n-1"`.
   */
  keys: string[];
  /**
   * One self-contained text per outcome, parallel to `keys`: the instructions followed by the
   * outcome line (`Yes: ...` / `No: ...`, `Answer: <option>: <description>`,
   * `Level <i> of <n-1>: <description>`). This is what the encoder compares with the state.
   */
  outcomes: string[];
  /**
   * The full rendering: the instructions, then every criterion on its own line or block. The
   * text whose tokens `usage.input_tokens` counts for this question.
   */
  text: string;
}

/**
 * Joins the instructions and one outcome line. A space keeps a one-line question and its
 * outcome a single natural sentence pair; structured instructions end with data lines, so
 * there the outcome goes on a new line lest it read as part of the last field's value.
 */
function compose(instructions: string, line: string): string {
  if (instructions === '') return line;
  return instructions + (instructions.includes('\n') ? '\n' : ' ') + line;
}

function joinBlocks(blocks: string[]): string {
  return blocks.filter((block) => block !== '').join('\n');
}

function isPlainObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Renders a question deterministically.
 *
 * - noul: outcomes `<instructions> Yes: <true criterion>` and `<instructions> No: <false
 *   criterion>`; a missing or null criterion gives a bare `Yes.` / `No.` so that the two
 *   outcomes always differ.
 * - choice: outcome `<instructions> Answer: <option>: <description>`; a null description
 *   gives `Answer: <option>`, the option interpreted by its name alone. The full text lists
 *   `- <option>: <description>` lines.
 * - score: outcome `<instructions> Level <i> of <n-1>: <description>`, i.e. the level on a
 *   scale from 0 to the top level. Zero-based like the keys and the legend, because rubrics
 *   often describe counts (`Level 0 of 3: 0`, `Level 1 of 3: 1`...) and a one-based label
 *   beside such a description (`Level 1 of 4: 0`) would contradict it.
 *
 * References in backticks to data fields of structured instructions are resolved (backticks
 * dropped) in the criteria too, since criteria often cite the same data.
 * Never throws for a valid question; malformed criteria are treated as empty rather than
 * failing, validation being the place that rejects them.
 * @throws TypeError if `question.type` is not one of the three types.
 */
export function renderQuestion(question: Question): RenderedQuestion {
  const rendered = renderInstructions(question.instructions);
  const instructions = rendered.text;
  const resolve = (text: string): string => resolveReferences(text, rendered.labels);

  switch (question.type) {
    case 'noul': {
      const criteria = isPlainObject(question.criteria) ? question.criteria : {};
      const present = (value: unknown): boolean => value !== null && value !== undefined;
      const lines = [
        present(criteria.true) ? resolve(labelledContent('Yes', criteria.true)) : '',
        present(criteria.false) ? resolve(labelledContent('No', criteria.false)) : '',
      ];
      return {
        type: 'noul',
        instructions,
        keys: ['true', 'false'],
        outcomes: [compose(instructions, lines[0] || 'Yes.'), compose(instructions, lines[1] || 'No.')],
        text: joinBlocks([instructions, ...lines]),
      };
    }
    case 'choice': {
      const criteria = isPlainObject(question.criteria) ? question.criteria : {};
      const keys = Object.keys(criteria);
      const outcomes: string[] = [];
      const lines: string[] = [];
      for (const key of keys) {
        const name = sanitizeLabel(key);
        const description = criteria[key];
        outcomes.push(compose(instructions, resolve(labelledContent(`Answer: ${name}`, description))));
        lines.push(resolve(labelledContent(`- ${name}`, description)));
      }
      return { type: 'choice', instructions, keys, outcomes, text: joinBlocks([instructions, ...lines]) };
    }
    case 'score': {
      const criteria: readonly unknown[] = Array.isArray(question.criteria) ? question.criteria : [];
      const top = criteria.length - 1;
      const lines = criteria.map((description, level) =>
        resolve(labelledContent(`Level ${level} of ${top}`, description)),
      );
      return {
        type: 'score',
        instructions,
        keys: criteria.map((_, level) => String(level)),
        outcomes: lines.map((line) => compose(instructions, line)),
        text: joinBlocks([instructions, ...lines]),
      };
    }
    default: {
      const type: unknown = (question as { type?: unknown }).type;
      throw new TypeError(`unknown question type: ${JSON.stringify(type) ?? String(type)}`);
    }
  }
}
