/**
 * Instruction wordings of the conversions, at least ten per kind, so that the model learns the
 * task and not one template: questions, statements to verify, "Answer yes if ..." forms, and
 * noul criteria that restate what counts as yes and no. Each template is a function of the
 * row's own text; `{src}` words vary with the state (text or record).
 * @module
 */
import type { NoulCriteria } from '../../types.js';
import { asQuestion, bareStatement, lcFirst, pick, type Random } from './util.js';

const TEXT_NAMES = ['the text', 'the passage', 'the state', 'the content', 'what is written'];
const RECORD_NAMES = ['the record', 'the data', 'the table', 'the entry', 'this information'];

/** Noul questions asking whether a statement (a hypothesis, claim or conclusion) holds. */
const CLAIM: readonly ((h: string, H: string, src: string) => string)[] = [
  (_h, H) => H,
  (h, _H, src) => `Does ${src} say that ${h}?`,
  (h, _H, src) => `According to ${src}, is it true that ${h}?`,
  (h, _H, src) => `Answer yes if ${src} shows that ${h}.`,
  (h, _H, src) => `Can one conclude from ${src} that ${h}?`,
  (_h, H) => `Verify this statement: ${H}`,
  (_h, H, src) => `Does ${src} support the claim "${H}"?`,
  (_h, H) => `True or false: ${H}`,
  (h) => `Does it follow that ${h}?`,
  (_h, H, src) => `Is the following backed by ${src}? ${H}`,
  (_h, H) => `Claim: ${H} Is it confirmed?`,
  (h) => `Check whether ${h}.`,
  (h, _H, src) => `Is it established by ${src} that ${h}?`,
  (_h, H) => `Statement to verify: ${H}`,
  (h) => `Is it the case that ${h}?`,
];

/** Noul questions wrapping a yes/no question of a reading-comprehension set. */
const QUESTION: readonly ((q: string, Q: string, src: string) => string)[] = [
  (_q, Q) => Q,
  (q, _Q, src) => `According to ${src}, ${q}`,
  (_q, Q, src) => `Based on ${src}: ${Q}`,
  (_q, Q) => `Answer yes or no: ${Q}`,
  (_q, Q) => `Question: ${Q}`,
  (_q, Q, src) => `${Q} Answer from ${src} only.`,
  (_q, Q) => `Read the text and answer: ${Q}`,
  (q) => `Using the information given, ${q}`,
  (q, _Q, src) => `Given ${src}, ${q}`,
  (_q, Q) => `Q: ${Q}`,
  (q, _Q, src) => `From what ${src} says, ${q}`,
  (_q, Q, src) => `Answer yes if ${src} indicates the answer is yes. ${Q}`,
];

/** Criteria that restate the entailment rule (yes only when stated or implied). */
const CLAIM_CRITERIA: readonly NoulCriteria[] = [
  { true: 'The text states it or clearly implies it.', false: 'The text contradicts it or does not say it.' },
  { true: 'Supported by the content.', false: 'Contradicted or not mentioned.' },
  { true: 'It must be true given what is written.' },
  { false: 'Answer no when the content does not establish it, including when it is simply not mentioned.' },
  { true: 'Entailed', false: 'Not entailed (contradicted or unknown)' },
  { true: 'yes: the statement follows from the state', false: 'no: it is false or cannot be determined' },
];

const QUESTION_CRITERIA: readonly NoulCriteria[] = [
  { true: 'The passage indicates the answer is yes.', false: 'The passage indicates the answer is no.' },
  { true: 'yes', false: 'no' },
  { true: 'The answer to the question is yes according to the text.' },
  { false: 'The text shows the answer is no.' },
];

export function sourceName(structured: boolean, random: Random): string {
  return pick(structured ? RECORD_NAMES : TEXT_NAMES, random);
}

/** A noul question asking whether `statement` holds for the state. */
export function claimQuestion(statement: string, structured: boolean, random: Random, criteriaRate = 0.3) {
  const H = statement.trim().replace(/\s+/g, ' ');
  const Hs = /[.!?]$/.test(H) ? H : `${H}.`;
  const text = pick(CLAIM, random)(bareStatement(H), Hs, sourceName(structured, random));
  return random() < criteriaRate
    ? { type: 'noul' as const, instructions: text, criteria: pick(CLAIM_CRITERIA, random) }
    : { type: 'noul' as const, instructions: text };
}

/** A noul question wrapping a reading-comprehension yes/no question. */
export function questionQuestion(question: string, random: Random, criteriaRate = 0.2) {
  const Q = asQuestion(question);
  const q = lcFirst(Q);
  const text = pick(QUESTION, random)(q, Q, sourceName(false, random));
  return random() < criteriaRate
    ? { type: 'noul' as const, instructions: text, criteria: pick(QUESTION_CRITERIA, random) }
    : { type: 'noul' as const, instructions: text };
}

/** Choice instructions by kind of label. */
export const CHOICE_INSTRUCTIONS: Record<'intent' | 'emotion' | 'sentiment' | 'topic', readonly (string | null)[]> = {
  intent: [
    'What does the user want?',
    'Which intent does this message express?',
    'Classify the request.',
    "Pick the intent of the user's message.",
    'Which of these best describes what the user is asking for?',
    'Route this message to the right intent.',
    'What is the purpose of this utterance?',
    'Which category does this request belong to?',
    "Identify the user's goal.",
    'Select the action the user is requesting.',
    'Label the message with its intent.',
    'What is the customer trying to do?',
    null,
  ],
  emotion: [
    'Which emotion does the writer express?',
    'What is the dominant feeling in this comment?',
    'How does the author feel?',
    'Pick the emotion that best fits the text.',
    'Classify the emotion of this message.',
    'Which emotion label fits this comment?',
    'What mood does the writer convey?',
    'Select the emotion expressed.',
    'What feeling comes through in this text?',
    'Tag this comment with an emotion.',
    null,
  ],
  sentiment: [
    'What is the sentiment of this line?',
    'Which sentiment does the text express?',
    'How does this passage feel?',
    'Classify the emotional impact of the text.',
    'Pick the sentiment label.',
    'What tone does the text have?',
    'Is the line positive, negative, mixed or neutral?',
    'Which option describes the feeling of the text?',
    'Label the sentiment.',
    'What emotional effect does this verse have?',
  ],
  topic: [
    'What is this about?',
    'Which topic does the message belong to?',
    'Pick the domain of the request.',
    'Which area does the user need help with?',
    'Classify the topic.',
    'What subject is the message on?',
    'Which service should handle this?',
    'Select the category of the request.',
    'What kind of request is this?',
    'Assign the message to a topic.',
  ],
};

/** Names for an option that is gold when no listed intent applies. */
export const NONE_OPTIONS = ['none of these', 'out of scope', 'other', 'none of the above', 'something else', 'no matching intent'];

/** Yes/no wordings asking whether a text expresses an emotion (`e` is a noun: joy, anger). */
export const EMOTION_NOUL: readonly ((e: string) => string)[] = [
  (e) => `Does the writer express ${e}?`,
  (e) => `Is ${e} the feeling expressed here?`,
  (e) => `Does this comment show ${e}?`,
  (e) => `The writer expresses ${e}.`,
  (e) => `Answer yes if the text conveys ${e}.`,
  (e) => `Is the author's emotion ${e}?`,
  (e) => `Is there ${e} in this message?`,
  (e) => `Does the text come across as ${e}?`,
  (e) => `Would you say the main emotion is ${e}?`,
  (e) => `Emotion check: ${e}?`,
];

/** Rubric wordings of graded sets, by scale. */
export const SCORE_INSTRUCTIONS: Record<'valence' | 'arousal' | 'difficulty', readonly string[]> = {
  valence: [
    'How positive is this text?',
    'Rate the sentiment of the text.',
    'How does the text feel, from negative to positive?',
    'Rate the emotional tone.',
    'How pleasant is what the writer describes?',
    'Score the valence of this sentence.',
    'What is the overall sentiment?',
    'Rate how positive or negative the writer sounds.',
    'Place this text on a negative-to-positive scale.',
    'How happy or unhappy does this text sound?',
  ],
  arousal: [
    'How excited or agitated is the writer?',
    'Rate the emotional intensity of the text.',
    'How calm or aroused does this sound?',
    'Score the arousal of this sentence.',
    'How energetic is the tone?',
    'How intense is the feeling expressed?',
    'Rate how worked up the writer is.',
    'Place the text on a calm-to-excited scale.',
    'How much emotional activation does the text show?',
    'How stirred up is the writer?',
  ],
  difficulty: [
    'How difficult is this text to read?',
    'Rate the reading level.',
    'What level of English does a reader need for this?',
    'How advanced is the language?',
    'Score the reading difficulty.',
    'Which proficiency level is this text written for?',
    'How hard is this for a learner of English?',
    'Rate the complexity of the language.',
    'Place the text on a reading-difficulty scale.',
    'How demanding is the vocabulary and grammar?',
  ],
};
