/** Helpers shared by the exact stage's tests: a yes/no question, and what the stage answers to it. */
import { exactAnswer } from '../src/exact/index.js';
import type { Question, State } from '../src/types.js';

export const noul = (instructions: Question['instructions'], criteria?: Record<string, string | null>): Question =>
  ({ type: 'noul', instructions, ...(criteria ? { criteria } : {}) }) as Question;

/** true / false when the stage answers the yes/no question, undefined when it leaves it to the model. */
export function yes(state: State, question: string | Question): boolean | undefined {
  const answer = exactAnswer(state, typeof question === 'string' ? noul(question) : question).answer;
  if (!answer) return undefined;
  if (answer.type !== 'noul') throw new Error('not a noul answer');
  return answer.noul > 0.5;
}
