/**
 * The heads stage: one head per question type turns the state's encoding and the question's
 * outcome embeddings into a typed answer. Each question is answered from its own inputs only,
 * so answers never depend on other questions of the request or on question ids.
 * @module
 */
import type { RenderedQuestion } from '../canonical/index.js';
import type { StateEncoding } from '../encoder/index.js';
import type { ZeroShotHeadsSpec } from '../registry/index.js';
import type { Answer, Question } from '../types.js';
import { choiceAnswer, noulAnswer, scoreAnswer, softmax } from './answers.js';
import { similarityLogits } from './zero-shot.js';

export { argmax, choiceConfidence, scoreConfidence } from './confidence.js';
export { choiceAnswer, noulAnswer, scoreAnswer, softmax } from './answers.js';
export { TrainedHeadsRunner } from './runner.js';
export { provideHeads, type HeadsManifest } from './trained.js';
export { provideReader } from './reader/load.js';
export type { ReaderManifest } from './reader/weights.js';

/** Answers one question. `outcomeVectors` align with `rendered.outcomes`. */
export function answerQuestion(
  question: Question,
  rendered: RenderedQuestion,
  state: StateEncoding,
  outcomeVectors: readonly Float32Array[],
  heads: ZeroShotHeadsSpec,
): Answer {
  switch (question.type) {
    case 'noul': {
      // outcomes are [yes, no]
      const [pYes] = softmax(similarityLogits(state.pooled, outcomeVectors, heads.temperature.noul));
      return noulAnswer(pYes!);
    }
    case 'choice':
      return choiceAnswer(rendered.keys, softmax(similarityLogits(state.pooled, outcomeVectors, heads.temperature.choice)));
    case 'score':
      return scoreAnswer(question.criteria, softmax(similarityLogits(state.pooled, outcomeVectors, heads.temperature.score)));
    default: {
      const unreachable: never = question;
      throw new Error(`Unknown question type ${JSON.stringify(unreachable)}`);
    }
  }
}
