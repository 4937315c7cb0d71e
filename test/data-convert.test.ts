/**
 * The converters of `npm run data` on small synthetic rows (no shared data needed): labels
 * survive the conversion, option sets and rubrics are well formed, wordings vary, groups keep
 * one split, and the output is deterministic.
 */
import { describe, expect, it } from 'vitest';
import type { ChoiceQuestion, ScoreQuestion } from '../src/types.js';
import { caseProblem } from '../src/training/data/check.js';
import { cefr, emobank, excerpts, levelOf, onestopenglish } from '../src/training/data/convert-graded.js';
import { clinc150, goemotions, hwu64 } from '../src/training/data/convert-intents.js';
import { contentStems, infotabs, snli, tableState } from '../src/training/data/convert-nli.js';
import { boolq, condaqa, folio, strategyqa } from '../src/training/data/convert-passages.js';
import { labelWords, optionSet } from '../src/training/data/options.js';
import { CHOICE_INSTRUCTIONS, claimQuestion, EMOTION_NOUL, questionQuestion, SCORE_INSTRUCTIONS } from '../src/training/data/phrasings.js';
import type { Placed, Row } from '../src/training/data/types.js';
import { rng } from '../src/training/data.js';
import { normalizeText, publicSplitter, trimToSentences } from '../src/training/data/util.js';

const questionsOf = (placed: readonly Placed[]) => placed.flatMap((p) => Object.entries(p.case.questions).map(([qid, q]) => ({ q, gold: p.case.gold[qid], c: p.case })));
const wellFormed = (placed: readonly Placed[]) => placed.forEach((p) => expect(caseProblem(p.case), p.case.id).toBeNull());

describe('wordings', () => {
  it('has at least ten phrasings per conversion kind, and uses them', () => {
    const random = rng(1);
    const claims = new Set(Array.from({ length: 400 }, () => String(claimQuestion('A man is running.', false, random).instructions)));
    const questions = new Set(Array.from({ length: 400 }, () => String(questionQuestion('is the sky blue', random).instructions)));
    expect(claims.size).toBeGreaterThanOrEqual(10);
    expect(questions.size).toBeGreaterThanOrEqual(10);
    for (const list of Object.values(CHOICE_INSTRUCTIONS)) expect(list.length).toBeGreaterThanOrEqual(10);
    for (const list of Object.values(SCORE_INSTRUCTIONS)) expect(list.length).toBeGreaterThanOrEqual(10);
    expect(EMOTION_NOUL.length).toBeGreaterThanOrEqual(10);
  });
  it('asks noul questions with and without criteria', () => {
    const random = rng(2);
    const qs = Array.from({ length: 200 }, () => claimQuestion('The door is open.', false, random));
    expect(qs.some((q) => q.criteria)).toBe(true);
    expect(qs.some((q) => !q.criteria)).toBe(true);
  });
  it('embeds statements after "that" in lower case only for common first words', () => {
    const random = rng(3);
    const texts = Array.from({ length: 300 }, () => String(claimQuestion('Maria owns a dog.', false, random).instructions));
    expect(texts.every((t) => !t.includes('maria'))).toBe(true);
    expect(Array.from({ length: 300 }, () => String(claimQuestion('A man owns a dog.', false, random).instructions)).some((t) => t.includes('that a man owns a dog'))).toBe(true);
  });
});

describe('choice option sets', () => {
  it('always contain the gold, at varied positions, with 2 to 40 options', () => {
    const labels = Array.from({ length: 60 }, (_, i) => `intent_${i}`);
    const random = rng(4);
    const positions = new Set<number>();
    const sizes = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const { question, gold } = optionSet({ gold: 'intent_7', labels }, 'Which intent?', random);
      const names = Object.keys(question.criteria);
      expect(names).toContain(gold);
      expect(names.length).toBeGreaterThanOrEqual(2);
      expect(names.length).toBeLessThanOrEqual(41);
      expect(new Set(names).size).toBe(names.length);
      positions.add(names.indexOf(gold));
      sizes.add(names.length);
      const goldText = question.criteria[gold];
      // The gold option names or describes the row's label, never another one.
      expect(`${gold} ${goldText ?? ''}`.toLowerCase()).toMatch(/intent[ _]7\b/);
    }
    expect(positions.size).toBeGreaterThan(20);
    expect(sizes.size).toBeGreaterThan(20);
  });
  it('makes the out-of-scope option gold only when no listed label applies', () => {
    const random = rng(5);
    const labels = ['a_b', 'c_d', 'e_f', 'g_h'];
    for (let i = 0; i < 200; i++) {
      const none = optionSet({ gold: 'oos', labels, none: true }, null, random);
      expect(String(none.question.criteria[none.gold] ?? none.gold)).toMatch(/none|scope|other|something else|no matching/i);
      const some = optionSet({ gold: 'c_d', labels }, null, random);
      expect(normalizeText(`${some.gold} ${JSON.stringify(some.question.criteria[some.gold])}`)).toContain('c d');
      expect(normalizeText(`${some.gold} ${JSON.stringify(some.question.criteria[some.gold])}`)).not.toMatch(/none|scope|other|something else|no matching/);
    }
  });
  it('keeps excluded near-synonyms out of the distractors', () => {
    const random = rng(6);
    for (let i = 0; i < 100; i++) {
      const { question } = optionSet({ gold: 'anger', labels: ['anger', 'annoyance', 'joy', 'fear', 'sadness'], exclude: new Set(['annoyance']) }, null, random);
      expect(JSON.stringify(question.criteria)).not.toMatch(/annoyance/i);
    }
  });
});

describe('converters', () => {
  const nliRows: Row[] = [
    { id: 'n1', split: 'dev', premise: 'A man plays a red guitar on a stage.', hypothesis: 'A man plays music.', label: 'entailment' },
    { id: 'n2', split: 'dev', premise: 'A man plays a red guitar on a stage.', hypothesis: 'The man is famous.', label: 'neutral' },
    { id: 'n3', split: 'dev', premise: 'A man plays a red guitar on a stage.', hypothesis: 'The man is asleep.', label: 'contradiction' },
    { id: 'n4', split: 'test', premise: 'Two dogs run across a snowy field.', hypothesis: 'Animals are outside.', label: 'entailment' },
    { id: 'n5', split: 'test', premise: 'Two dogs run across a snowy field.', hypothesis: 'The dogs are sleeping indoors.', label: 'contradiction' },
    { id: 'n6', split: 'dev', premise: 'A woman sells fruit at a market.', hypothesis: 'A woman is selling something.', label: 'entailment' },
    { id: 'n7', split: 'dev', premise: 'A woman sells fruit at a market.', hypothesis: 'A woman is asleep.', label: 'contradiction' },
  ];
  it('entailment: yes only for entailment, hypotheses asked over states holding their premise', () => {
    const out = snli(nliRows);
    wellFormed(out);
    const byHyp = new Map(nliRows.map((r) => [String(r.hypothesis).replace(/\.$/, ''), r]));
    for (const { q, gold, c } of questionsOf(out)) {
      const row = [...byHyp.entries()].find(([h]) => String(q.instructions).toLowerCase().includes(h.toLowerCase()));
      expect(row, String(q.instructions)).toBeDefined();
      expect(gold).toBe(row![1].label === 'entailment');
      expect(JSON.stringify(c.state)).toContain(String(row![1].premise));
    }
  });
  it('never groups a premise with another that shares a word of its non-entailed hypotheses', () => {
    // "asleep" (a contradiction of the guitar premise) is in the third premise's hypothesis
    // only; "man" is shared by the first premise and its hypotheses.
    expect([...contentStems('The man is asleep.')]).toEqual(expect.arrayContaining(['man', 'aslee']));
    for (let seed = 0; seed < 5; seed++) {
      const rows = nliRows.map((r) => ({ ...r, id: `${r.id}-${seed}` }));
      for (const p of snli(rows)) {
        const text = JSON.stringify(p.case.state);
        if (text.includes('guitar')) expect(text).not.toMatch(/asleep/);
      }
    }
  });
  it('INFOTABS tables become JSON object states, single values unwrapped', () => {
    expect(tableState({ title: ['In Rainbows'], Genre: ['rock', 'art pop'], Length: ['42 : 39'] })).toEqual({ title: 'In Rainbows', Genre: ['rock', 'art pop'], Length: '42: 39' });
    const rows: Row[] = ['entailment', 'neutral', 'contradiction', 'entailment'].map((label, i) => ({ id: `t${i}`, split: 'train', table_id: 'T1', table: { title: ['X'], Born: ['1970'] }, hypothesis: `X fact ${i}.`, label }));
    const out = infotabs(rows);
    wellFormed(out);
    for (const { gold, q } of questionsOf(out)) expect(gold).toBe(/fact [03]/.test(String(q.instructions)));
    expect(out.every((p) => typeof p.case.state === 'object' && !Array.isArray(p.case.state))).toBe(true);
  });
  it('passages: yes/no answers kept, over-long passages skipped, CondaQA edits paired', () => {
    const long = 'Word '.repeat(300);
    const out = boolq([
      { id: 'b1', split: 'dev', passage: 'Cats are mammals.', question: 'are cats mammals', answer: 'yes' },
      { id: 'b2', split: 'dev', passage: 'Cats are mammals.', question: 'are cats birds', answer: 'no' },
      { id: 'b3', split: 'dev', passage: long, question: 'is it long', answer: 'yes' },
    ]);
    wellFormed(out);
    expect(out).toHaveLength(1);
    const qs = questionsOf(out);
    expect(qs.map((x) => x.gold)).toEqual([true, false]);
    expect(String(qs[0]!.q.instructions)).toMatch(/cats mammals\?/i);
    const conda = condaqa([
      { id: 1, split: 'dev', passage: 'The shop is open on Sundays.', question: 'Can you shop on Sunday?', answer: 'yes' },
      { id: 2, split: 'dev', passage: 'The shop is never open on Sundays.', question: 'Can you shop on Sunday?', answer: 'no' },
      { id: 3, split: 'dev', passage: 'The shop may open on Sundays.', question: 'Can you shop on Sunday?', answer: 'dont_know' },
    ]);
    expect(conda).toHaveLength(2);
    expect(conda[0]!.case.pair).toBeDefined();
    expect(conda[0]!.case.pair).toBe(conda[1]!.case.pair);
    expect(conda[0]!.split).toBe(conda[1]!.split);
  });
  it('FOLIO: yes only for true conclusions; StrategyQA facts become the state', () => {
    const rows: Row[] = ['true', 'false', 'true'].map((label, i) => ({ id: `f${i}`, split: 'train', premises: ['All cats purr.', 'Tom is a cat.'], conclusion: `Conclusion ${i}.`, label }));
    for (const { gold, q } of questionsOf(folio(rows))) expect(gold).toBe(!/Conclusion 1/.test(String(q.instructions)));
    const s = strategyqa([{ id: 's', split: 'train', facts: ['Fact one.', 'Fact two.'], question: 'Is it so?', answer: 'no' }]);
    expect(JSON.stringify(s[0]!.case.state)).toMatch(/Fact one\..*Fact two\./);
    expect(s[0]!.case.gold.q1).toBe(false);
  });
  it('intents: gold among the options; CLINC out-of-scope rows answer the out-of-scope option', () => {
    const rows: Row[] = [];
    for (let i = 0; i < 30; i++) rows.push({ id: `c${i}`, split: 'train', text: `please do thing ${i}`, label: i % 5 === 0 ? 'oos' : `intent_${i % 7}` });
    const out = clinc150(rows);
    wellFormed(out);
    for (const p of out) {
      const q = p.case.questions.q1 as ChoiceQuestion;
      const g = String(p.case.gold.q1);
      const label = rows.find((r) => `clinc150/${r.id}` === p.case.id)!.label as string;
      const named = normalizeText(`${g} ${JSON.stringify(q.criteria[g])}`);
      if (label === 'oos') expect(named).toMatch(/none|scope|other|something else|no matching/);
      else expect(named).toContain(normalizeText(label));
    }
  });
  it('HWU64 options from other scenarios only make the out-of-scope option gold', () => {
    const rows: Row[] = [];
    for (let i = 0; i < 400; i++) rows.push({ id: `h${i}`, split: 'train', text: `utterance number ${i}`, scenario: `s${i % 4}`, label: `s${i % 4}_intent${i % 3}` });
    for (const p of hwu64(rows)) {
      const row = rows.find((r) => `hwu64/${r.id}` === p.case.id)!;
      const q = p.case.questions.q1 as ChoiceQuestion;
      const g = String(p.case.gold.q1);
      const label = normalizeText(String(row.label));
      const named = normalizeText(`${g} ${JSON.stringify(q.criteria[g])}`);
      if (normalizeText(JSON.stringify(q.criteria)).includes(label)) expect(named).toContain(label);
      else expect(named).toMatch(/none|scope|other|something else|no matching/);
    }
  });
  it('GoEmotions: single-label rows only; noul yes for the row emotion, no for an opposite one', () => {
    const rows: Row[] = Array.from({ length: 200 }, (_, i) => ({ id: `g${i}`, split: 'train', text: `comment ${i}`, labels: i % 10 === 0 ? ['joy', 'love'] : [i % 2 ? 'joy' : 'anger'] }));
    const out = goemotions(rows);
    wellFormed(out);
    expect(out.length).toBe(180);
    for (const { q, gold, c } of questionsOf(out)) {
      const label = (rows.find((r) => `goemotions/${r.id}` === c.id)!.labels as string[])[0]!;
      if (q.type === 'noul') expect(gold).toBe(String(q.instructions).includes(label));
    }
  });
  it('graded: levels from ratings only when clearly inside a level, 3 to 7 levels', () => {
    expect(levelOf(3.0, 3, 2, 4)).toBe(1);
    expect(levelOf(2.5, 3, 2, 4)).toBeNull();
    expect(levelOf(1.2, 5, 2, 4)).toBe(0);
    expect(levelOf(4.6, 7, 2, 4)).toBe(6);
    const rows: Row[] = Array.from({ length: 300 }, (_, i) => ({ id: `e${i}`, split: 'train', text: `A sentence that is long enough ${i}.`, valence: 1 + (i % 41) / 10, arousal: 3 }));
    const out = emobank(rows);
    wellFormed(out);
    for (const { q, gold, c } of questionsOf(out)) {
      const s = q as ScoreQuestion;
      expect(s.criteria.length).toBeGreaterThanOrEqual(3);
      expect(s.criteria.length).toBeLessThanOrEqual(7);
      if (!/positive|pleasant|sentiment|valence|tone|happy|negative/.test(String(q.instructions))) continue;
      const v = Number(rows.find((r) => `emobank/${r.id}` === c.id)!.valence);
      const words = s.criteria.map(String);
      const g = Number(gold);
      // Informative rubrics: the gold level's wording agrees with the rating's side of neutral.
      if (words.some((w) => /negative/.test(w))) {
        if (v <= 2.2) expect(words[g]).toMatch(/negative/);
        if (v >= 3.8) expect(words[g]).toMatch(/positive/);
      }
    }
    const c = cefr([{ id: 'x', split: 'train', text: 'Hard words.', level_a: 5, level_b: 5 }, { id: 'y', split: 'train', text: 'Easy.', level_a: 1, level_b: 2 }]);
    expect(c).toHaveLength(1);
    const cq = c[0]!.case.questions.q1 as ScoreQuestion;
    expect([4, 2, 1, 0]).toContain(c[0]!.case.gold.q1 as number);
    expect(String(cq.criteria[c[0]!.case.gold.q1 as number])).toMatch(/C1|advanced|difficult|hard|proficient|^[235]$|^[3-5] - /);
  });
  it('OneStopEnglish: excerpts of whole sentences under the cap, all versions of an article in one split', () => {
    const text = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    for (const e of excerpts(text, 200, 3)) {
      expect(e.length).toBeLessThanOrEqual(200);
      expect(e).toMatch(/^Sentence number \d+ is here\..*here\.$/);
    }
    const rows: Row[] = ['elementary', 'intermediate', 'advanced'].map((lvl) => ({ id: `ose-A-${lvl}`, split: 'all', article: 'A', text, level: lvl }));
    const out = onestopenglish(rows);
    expect(new Set(out.map((p) => p.split)).size).toBe(1);
    expect(trimToSentences('One. Two. Three.', 9)).toBe('One. Two.');
    expect(trimToSentences('A very long first sentence.', 5)).toBeNull();
  });
});

describe('splits of public sets', () => {
  it('uses the set own dev/test, caps held-out rows, and hashes sets without train rows', () => {
    const own = [...Array(5000).fill('train'), ...Array(3000).fill('test'), ...Array(200).fill('dev')];
    const split = publicSplitter('x', own);
    expect(split('train', 'k1')).toBe('train');
    expect(split('dev', 'k2')).toBe('calib');
    const tests = Array.from({ length: 3000 }, (_, i) => split('test', `t${i}`));
    const n = tests.filter((s) => s === 'test').length;
    expect(n).toBeGreaterThan(800);
    expect(n).toBeLessThan(1200);
    expect(tests.filter((s) => s === 'calib')).toHaveLength(0);
    const hashed = publicSplitter('y', Array(100).fill('dev'));
    const parts = Array.from({ length: 3000 }, (_, i) => hashed('dev', `k${i}`));
    expect(parts.filter((s) => s === 'train').length / 3000).toBeGreaterThan(0.75);
    expect(hashed('dev', 'same')).toBe(hashed('dev', 'same'));
  });
  it('is deterministic: the same rows give the same cases', () => {
    expect(JSON.stringify(snli(nliRowsCopy()))).toBe(JSON.stringify(snli(nliRowsCopy())));
    expect(normalizeText('Héllo,  World!')).toBe('hello world');
  });
});

function nliRowsCopy(): Row[] {
  return Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, split: 'dev', premise: `Premise ${Math.floor(i / 3)} about topic ${i % 7}.`, hypothesis: `Hypothesis ${i}.`, label: ['entailment', 'neutral', 'contradiction'][i % 3] }));
}
