/**
 * Direct yes/no questions from entailment sets, as sources of their own (`questions/<set>`):
 * a hypothesis whose verb phrase starts with an auxiliary ("A man is playing a guitar.")
 * becomes the question users would ask ("Is a man playing a guitar?"), yes where the premise
 * entails it and no where it contradicts it. Neutral rows are left out: a direct question about
 * something the text does not settle has no clear answer.
 *
 * The NLI converters (convert-nli.ts) ask whether a statement holds ("Does the text say
 * that ..."); users mostly ask the question itself, and the plain questions that failed were of
 * that form ("Did the flight land?", "Is the window closed?"). Each premise's questions share
 * one case, so a state usually carries a yes and a no question side by side (the reader learns
 * from the question, not from the state alone). Like the other derived sources this one has its
 * own random stream and case ids and uses the set's own split, so no other source changes.
 * @module
 */
import type { NoulQuestion } from '../../types.js';
import { contentStems } from './convert-nli.js';
import { questionQuestion } from './phrasings.js';
import type { Placed, Row } from './types.js';
import { groupBy, makeCase, MAX_STATE_CHARS, placed, type Item } from './states.js';
import { normalizeText, publicSplitter, randomFor, tidy } from './util.js';

/** Auxiliaries that front a question as they stand ("is" -> "Is ... ?"). */
const FRONTING = new Set(['is', 'are', 'was', 'were', 'can', 'could', 'will', 'would', 'should', 'must']);
/** has/have/had front only as perfect auxiliaries ("has left"), not as "have a dog". */
const PERFECT = new Set(['has', 'have', 'had']);
/** Words that mark a subject as a clause, not a noun phrase ("The man who is ..."). */
const CLAUSE = new Set(['who', 'that', 'which', 'while', 'when', 'where', 'because', 'if', 'as', 'is', 'are', 'was', 'were']);
/** Negations: a negated question ("Is a man not playing?") reads badly and flips easily. */
const NEGATION = /\b(not|no|never|nobody|nothing|none)\b|n't/i;
/** Subjects of at most this many words: longer ones are mostly clauses in MultiNLI's speech rows. */
const MAX_SUBJECT = 5;

/**
 * The subject as it reads inside a question: its first word lower-cased unless it is a name,
 * which it is taken to be where `context` (the premise) writes it capitalised after its start.
 */
function subjectInQuestion(subject: string, context: string): string {
  const first = subject.split(' ', 1)[0]!;
  const named = first === 'I' || context.slice(1).split(/\s+/).some((w, i) => i > 0 && w.replace(/[^\w'-]/g, '') === first);
  return named ? subject : first.toLowerCase() + subject.slice(first.length);
}

/**
 * The direct question of a statement, or null where its form is not "Subject AUX rest." with a
 * short noun-phrase subject and no negation; `context` (the premise) tells names from common
 * words at the subject's start.
 */
export function directQuestion(statement: string, context = ''): string | null {
  const text = tidy(statement).replace(/[.!\s]+$/, '');
  if (text === '' || /[?;:"]/.test(text) || NEGATION.test(text)) return null;
  const words = text.split(' ');
  const at = words.findIndex((w, i) => i > 0 && i <= MAX_SUBJECT && (FRONTING.has(w.toLowerCase()) || (PERFECT.has(w.toLowerCase()) && /^(been|\w+(ed|en))$/i.test(words[i + 1] ?? ''))));
  if (at < 1 || at === words.length - 1) return null;
  const subject = words.slice(0, at);
  if (subject.some((w, i) => /[,()]/.test(w) || w === 'I' || (i > 0 && CLAUSE.has(w.toLowerCase())))) return null;
  const aux = words[at]!.toLowerCase();
  const rest = words.slice(at + 1).join(' ');
  return `${aux[0]!.toUpperCase()}${aux.slice(1)} ${subjectInQuestion(subject.join(' '), context)} ${rest}?`;
}

/** One question item: the bare question most of the time, otherwise in a reading-comprehension wording. */
function item(question: string, gold: boolean, random: () => number): Item {
  const q: NoulQuestion = random() < 0.6 ? { type: 'noul', instructions: question } : questionQuestion(question, random, 0.15);
  return { question: q, gold };
}

/** Direct-question cases of an entailment set: one case per premise with a yes or no question to ask. */
function nliQuestions(set: string, rows: readonly Row[]): Placed[] {
  const source = `questions/${set}`;
  const random = randomFor(source);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const [key, group] of groupBy(rows, (r) => normalizeText(String(r.premise)))) {
    const premise = tidy(String(group[0]!.premise));
    if (key === '' || premise.length > MAX_STATE_CHARS) continue;
    const stems = contentStems(premise);
    const items: Item[] = [];
    for (const r of group) {
      if (r.label !== 'entailment' && r.label !== 'contradiction') continue;
      const question = directQuestion(String(r.hypothesis), premise);
      if (question === null) continue;
      const yes = r.label === 'entailment';
      // A yes whose every content word is in the premise is kept half the time, as in
      // convert-nli.ts: otherwise "all the question's words are in the text" would answer it.
      if (yes && [...contentStems(String(r.hypothesis))].every((w) => stems.has(w)) && random() < 0.5) continue;
      items.push(item(question, yes, random));
    }
    if (items.length === 0) continue;
    out.push(placed(split(String(group[0]!.split), key), makeCase(source, String(group[0]!.id), premise, items)));
  }
  return out;
}

/** SNLI (dev and test): mostly present-progressive scene descriptions ("A dog is running"). */
export const snliQuestions = (rows: readonly Row[]) => nliQuestions('esnli_snli_devtest', rows);
/** MultiNLI (TaxiNLI's rows): many genres and tenses. */
export const mnliQuestions = (rows: readonly Row[]) => nliQuestions('taxinli_mnli', rows);
