/**
 * Topic questions with described options, as sources of their own (`topics/<set>`): which kind
 * of text or which area a text belongs to, among options whose names are short and whose
 * descriptions say what the topic covers in words of their own ("Travel" — "A guide to places
 * to visit, sights, history and local customs.").
 *
 * The other choice sources name options by their labels, and their descriptions are written
 * from the label's own words ("The message is about alarm."), so nothing in the data asks the
 * reader to match a text against what an option's description means. Users write option lists
 * of that kind (a news category with a line saying what it covers), and the reader had learnt
 * to pick the option whose name shares words with the state. Here every name and description
 * was written by hand for the set's labels, in a few variants each, and the option names never
 * occur in the states by construction of the sets (genre labels of MultiNLI, scenarios of HWU64).
 *
 * Like the other derived sources these have their own random streams and case ids and use the
 * set's own split (by the same key as the set's other sources), so no other source changes.
 * @module
 */
import type { ChoiceQuestion } from '../../types.js';
import { CHOICE_INSTRUCTIONS } from './phrasings.js';
import type { Placed, Row } from './types.js';
import { groupBy, makeCase, MAX_STATE_CHARS, placed } from './states.js';
import { between, normalizeText, pick, publicSplitter, randomFor, sample, shuffledBy, tidy, type Random } from './util.js';

/** A topic: option names (one is picked per question) and descriptions (each as likely). */
export interface Topic {
  names: readonly string[];
  descriptions: readonly string[];
}

/**
 * MultiNLI's genres. Telephone and face-to-face speech are one topic (no sentence tells them
 * apart); OUP's non-fiction and Verbatim's language columns are left out: their sentences
 * (sales forecasts, hand guns, quoted speech) mostly say nothing of their genre.
 */
export const MNLI_GENRES: Readonly<Record<string, Topic>> = {
  travel: {
    names: ['travel', 'Travel guide', 'Tourism'],
    descriptions: ['A guide to places to visit, sights, history and local customs.', 'Destinations, sightseeing, hotels and trips.'],
  },
  government: {
    names: ['government', 'Government report', 'Public administration'],
    descriptions: ['An official report on public agencies, budgets, programs or regulations.', 'Federal agencies, audits, public policy and rules.'],
  },
  conversation: {
    names: ['conversation', 'Spoken conversation', 'Transcribed speech'],
    descriptions: ['People talking informally, as transcribed from speech, with fillers such as "you know" and "uh".', 'A casual chat between people.'],
  },
  fiction: {
    names: ['fiction', 'Story', 'Novel'],
    descriptions: ['A scene from a novel or short story, with characters, action and dialogue.', 'Narrative fiction.'],
  },
  letters: {
    names: ['letter', 'Fundraising letter', 'Appeal'],
    descriptions: ['A letter asking its readers to give money or support to a charity, school or organisation.', 'A request for donations.'],
  },
  nineeleven: {
    names: ['security investigation', '9/11 report', 'Terrorism'],
    descriptions: ['An investigation of the September 11 attacks: terrorists, intelligence agencies and aviation security.', 'Terrorism, hijackings and national security.'],
  },
  slate: {
    names: ['magazine', 'Magazine article', 'Commentary'],
    descriptions: ['A magazine column on politics, culture, the media or current affairs.', 'Opinion and commentary on the news, politics and culture.'],
  },
};
const GENRE_OF: Readonly<Record<string, string>> = { telephone: 'conversation', facetoface: 'conversation' };

/**
 * HWU64's scenarios. "general" (repeat, cancel, confirm) is left out: its commands belong to
 * any area.
 */
export const HWU_SCENARIOS: Readonly<Record<string, Topic>> = {
  alarm: { names: ['alarm', 'Alarms', 'Wake-up'], descriptions: ['Setting, checking or removing alarms.', 'Being woken or reminded at a set time by an alarm.'] },
  audio: { names: ['audio', 'Volume', 'Sound settings'], descriptions: ['Turning the sound up or down, muting it.', 'Speaker volume and sound.'] },
  calendar: { names: ['calendar', 'Schedule', 'Appointments'], descriptions: ['Meetings, events and reminders in a diary.', 'Adding, checking or removing appointments.'] },
  cooking: { names: ['cooking', 'Recipes', 'Kitchen'], descriptions: ['How to prepare a dish: recipes and ingredients.', 'Cooking instructions and recipes.'] },
  datetime: { names: ['date and time', 'Clock', 'Time'], descriptions: ['What time or day it is, here or in another time zone.', 'The current date and time.'] },
  email: { names: ['email', 'Mail', 'Inbox'], descriptions: ['Reading, writing or sending email messages and managing contacts.', 'Electronic mail and contacts.'] },
  iot: { names: ['smart home', 'Home devices', 'IoT'], descriptions: ['Controlling lights, plugs, the vacuum cleaner or the coffee machine at home.', 'Connected devices in the house.'] },
  lists: { names: ['lists', 'To-do lists', 'Shopping lists'], descriptions: ['Creating lists, adding items to them or reading them out.', 'Keeping track of tasks and things to buy.'] },
  music: { names: ['music', 'Music preferences', 'Songs'], descriptions: ['Information about the music playing, liking songs, music settings.', 'Songs, artists and music taste.'] },
  news: { names: ['news', 'Headlines', 'Current events'], descriptions: ['The latest news stories and headlines.', 'What is happening in the world today.'] },
  play: { names: ['play media', 'Playback', 'Entertainment'], descriptions: ['Playing music, radio, podcasts, audiobooks or games.', 'Starting something to listen to or play.'] },
  qa: { names: ['questions', 'Facts', 'General knowledge'], descriptions: ['Factual questions: definitions, people, places, maths and stock prices.', 'Looking up a fact or an answer.'] },
  recommendation: { names: ['recommendations', 'Suggestions', 'Things to do'], descriptions: ['Suggestions of places to go, events, films or shops nearby.', 'Advice on what to choose or where to go.'] },
  social: { names: ['social media', 'Social networks', 'Complaints'], descriptions: ['Posting on social networks or complaining to a company online.', 'Social media updates and messages.'] },
  takeaway: { names: ['takeaway', 'Food delivery', 'Ordering food'], descriptions: ['Ordering food to be delivered or collected from a restaurant.', 'Takeaway orders and their status.'] },
  transport: { names: ['transport', 'Travel', 'Getting around'], descriptions: ['Trains, taxis, tickets and traffic on the way somewhere.', 'Journeys, bookings and directions.'] },
  weather: { names: ['weather', 'Forecast', 'Weather conditions'], descriptions: ['Rain, sun, temperature and the forecast.', 'What the weather is or will be.'] },
};

/** Instructions of a topic question about a passage (null: the option list alone). */
const PASSAGE_INSTRUCTIONS: readonly (string | null)[] = [
  'What kind of text is this?',
  'Which category fits this passage best?',
  'Where does this passage most likely come from?',
  'Classify the text.',
  'What is this text?',
  null,
];

/**
 * A choice among `min` to `max` topics, the gold among them: each option's name picked from
 * its variants and, most of the time, its description; sometimes the description alone under a
 * letter. Names and descriptions are the topic's own, never the label's words in a template.
 */
export function topicQuestion(topics: Readonly<Record<string, Topic>>, gold: string, instructions: string | null, random: Random, min = 2, max = 6): { question: ChoiceQuestion; gold: string } {
  const others = Object.keys(topics).filter((t) => t !== gold);
  const n = between(min, Math.min(max, others.length + 1), random);
  const chosen = shuffledBy([gold, ...sample(others, n - 1, random)], random);
  const style = random();
  const criteria: Record<string, string | null> = {};
  let goldName = '';
  chosen.forEach((t, i) => {
    const topic = topics[t]!;
    const description = pick(topic.descriptions, random);
    // Letters with descriptions (15%), names alone (20%), names with descriptions (65%).
    const name = style < 0.15 ? String.fromCharCode(65 + i) : pick(topic.names, random);
    criteria[name] = style < 0.15 || style >= 0.35 ? description : null;
    if (t === gold) goldName = name;
  });
  const question: ChoiceQuestion = instructions === null ? { type: 'choice', criteria } : { type: 'choice', instructions, criteria };
  return { question, gold: goldName };
}

/** Shortest premise asked about, in words: a short sentence rarely shows its genre. */
const MIN_WORDS = 8;

/** MultiNLI premises (each once): which kind of text is this? */
export function mnliTopics(rows: readonly Row[]): Placed[] {
  const set = 'taxinli_mnli';
  const source = `topics/${set}`;
  const random = randomFor(source);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const [key, group] of groupBy(rows, (r) => normalizeText(String(r.premise)))) {
    const r = group[0]!;
    const genre = GENRE_OF[String(r.genre)] ?? String(r.genre);
    const premise = tidy(String(r.premise));
    if (!MNLI_GENRES[genre] || key === '' || premise.length > MAX_STATE_CHARS || premise.split(' ').length < MIN_WORDS) continue;
    const { question, gold } = topicQuestion(MNLI_GENRES, genre, pick(PASSAGE_INSTRUCTIONS, random), random);
    out.push(placed(split(String(r.split), key), makeCase(source, String(r.id), premise, [{ question, gold }])));
  }
  return out;
}

/** Share of HWU64's requests asked about: the set already asks its scenario with label options for 30%. */
const HWU_SHARE = 0.5;

/** HWU64 requests: which area is the request in? */
export function hwuTopics(rows: readonly Row[]): Placed[] {
  const set = 'hwu64';
  const source = `topics/${set}`;
  const random = randomFor(source);
  const split = publicSplitter(set, rows.map((r) => String(r.split)));
  const out: Placed[] = [];
  for (const r of rows) {
    const text = tidy(String(r.text));
    const scenario = String(r.scenario);
    if (text === '' || !HWU_SCENARIOS[scenario] || random() >= HWU_SHARE) continue;
    const { question, gold } = topicQuestion(HWU_SCENARIOS, scenario, pick(CHOICE_INSTRUCTIONS.topic, random), random, 2, 8);
    out.push(placed(split(String(r.split), normalizeText(text)), makeCase(source, String(r.id), text, [{ question, gold }])));
  }
  return out;
}
