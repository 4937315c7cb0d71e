/**
 * Turns the question flags of `evalmodel ask` into a `questions` map:
 * `--noul "question"`, `--choice "question=a,b,c"` and `--score "question=low,mid,high"`.
 * The question text doubles as the question id, so answers print under the question asked.
 * @module
 */
import type { Question, Questions } from '../types.js';
import { UsageError } from './errors.js';

/** One question flag as given, in command-line order. */
export interface QuestionFlag {
  type: Question['type'];
  value: string;
}

/**
 * Splits a comma-separated list; `\,` stands for a literal comma. Items are trimmed and must
 * not be empty.
 */
export function splitList(list: string): string[] {
  const items: string[] = [];
  let current = '';
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === '\\' && list[i + 1] === ',') {
      current += ',';
      i++;
    } else if (c === ',') {
      items.push(current.trim());
      current = '';
    } else current += c;
  }
  items.push(current.trim());
  return items;
}

/**
 * Parses `question=a,b,c`. The question ends at the last `=` that is followed by the list, so
 * a question may itself contain `=` (options may not, unless the question has none).
 */
export function parseListFlag(flag: '--choice' | '--score', value: string): { question: string; items: string[] } {
  const at = value.lastIndexOf('=');
  const example = flag === '--choice' ? '--choice "Which team?=shipping,billing,technical"' : '--score "How upset?=calm,annoyed,furious"';
  if (at < 0) throw new UsageError(`${flag} '${value}': expected question=item,item,... as in ${example}`, 'ask');
  const question = value.slice(0, at).trim();
  const items = splitList(value.slice(at + 1));
  if (question === '') throw new UsageError(`${flag} '${value}': the question before '=' is empty`, 'ask');
  if (items.some((i) => i === '')) throw new UsageError(`${flag} '${value}': an empty item in the list after '='`, 'ask');
  if (flag === '--choice') {
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item)) throw new UsageError(`--choice '${value}': option '${item}' is listed twice`, 'ask');
      seen.add(item);
    }
  }
  return { question, items };
}

/** Builds the questions map; a question asked twice gets ids "q", "q (2)", ... */
export function buildQuestions(flags: readonly QuestionFlag[]): Questions {
  const questions: Questions = {};
  const put = (id: string, q: Question): void => {
    let key = id;
    for (let n = 2; Object.hasOwn(questions, key); n++) key = `${id} (${n})`;
    Object.defineProperty(questions, key, { value: q, enumerable: true, writable: true, configurable: true });
  };
  for (const flag of flags) {
    if (flag.type === 'noul') {
      const question = flag.value.trim();
      if (question === '') throw new UsageError('--noul: the question is empty', 'ask');
      put(question, { type: 'noul', instructions: question });
    } else if (flag.type === 'choice') {
      const { question, items } = parseListFlag('--choice', flag.value);
      const criteria: Record<string, null> = {};
      for (const item of items) Object.defineProperty(criteria, item, { value: null, enumerable: true, writable: true, configurable: true });
      put(question, { type: 'choice', instructions: question, criteria });
    } else {
      const { question, items } = parseListFlag('--score', flag.value);
      put(question, { type: 'score', instructions: question, criteria: items });
    }
  }
  return questions;
}
