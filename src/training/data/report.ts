/**
 * The data report: counts by source, type and option/level count; yes/no balance per source;
 * where gold choices and levels sit; the shortcut cues of the mixed training split (weighted as
 * the trainer samples); what was dropped; and the overlap check against the measure-only sets,
 * recomputed on the written output. Returned as JSON and rendered as markdown.
 * @module
 */
import type { SplitName } from '../data.js';
import type { Built } from './build.js';
import { noulCues, optionsInState, stateWordSet } from './cues.js';
import { overlapOf, strings, units } from './overlap.js';
import type { DataCase } from './types.js';

type Table = { title: string; note?: string; head: string[]; rows: (string | number)[][] };

/** A source's family for the tables: `corpus/x.jsonl` and `generated/x` stay whole, public sets by name. */
const family = (c: DataCase) => c.source;
const weightOf = (c: DataCase) => c.weight ?? 1;
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '-');

function bucketOptions(n: number): string {
  return n <= 2 ? '2' : n <= 4 ? '3-4' : n <= 8 ? '5-8' : n <= 16 ? '9-16' : n <= 40 ? '17-40' : '41+';
}

class Rate {
  yes = 0;
  all = 0;
  n = 0;
  add(hit: boolean, w: number): void {
    this.n++;
    this.all += w;
    if (hit) this.yes += w;
  }
  get rate(): number {
    return this.yes / this.all;
  }
}

export interface Report {
  tables: Table[];
  overlap: { files: string[]; remaining: number; corpusQuestionMatches: string[] };
}

export function makeReport(built: Built, keys: ReadonlySet<string>): Report {
  const tables: Table[] = [];
  const splits = built.splits;
  const names: SplitName[] = ['train', 'calib', 'test'];

  // Counts by source and split.
  const bySource = new Map<string, Record<string, number>>();
  for (const s of names)
    for (const c of splits[s]) {
      const row = bySource.get(family(c)) ?? {};
      row[`${s} cases`] = (row[`${s} cases`] ?? 0) + 1;
      for (const q of Object.values(c.questions)) {
        row[`${s} q`] = (row[`${s} q`] ?? 0) + 1;
        if (s === 'train') row[q.type] = (row[q.type] ?? 0) + 1;
      }
      row.weight = weightOf(c);
      bySource.set(family(c), row);
    }
  const sources = [...bySource.keys()].sort();
  const total: Record<string, number> = {};
  const cols = ['train cases', 'train q', 'noul', 'choice', 'score', 'calib q', 'test q'];
  for (const r of bySource.values()) for (const k of cols) total[k] = (total[k] ?? 0) + (r[k] ?? 0);
  tables.push({
    title: 'Counts by source',
    note: 'Questions (q) per split; the type columns count training questions. Weight: per-question sampling weight.',
    head: ['source', ...cols, 'weight'],
    rows: [...sources.map((s) => [s, ...cols.map((k) => bySource.get(s)![k] ?? 0), bySource.get(s)!.weight ?? 1]), ['all', ...cols.map((k) => total[k] ?? 0), '']],
  });

  // Option and level counts (training split).
  const optionCounts = new Map<string, number>();
  const levelCounts = new Map<number, number>();
  for (const c of splits.train)
    for (const q of Object.values(c.questions)) {
      if (q.type === 'choice') optionCounts.set(bucketOptions(Object.keys(q.criteria).length), (optionCounts.get(bucketOptions(Object.keys(q.criteria).length)) ?? 0) + 1);
      if (q.type === 'score') levelCounts.set(q.criteria.length, (levelCounts.get(q.criteria.length) ?? 0) + 1);
    }
  tables.push({ title: 'Choice questions by option count (train)', head: ['options', 'questions'], rows: ['2', '3-4', '5-8', '9-16', '17-40', '41+'].map((b) => [b, optionCounts.get(b) ?? 0]) });
  tables.push({ title: 'Score questions by level count (train)', head: ['levels', 'questions'], rows: [...levelCounts.keys()].sort((a, b) => a - b).map((k) => [k, levelCounts.get(k)!]) });

  // Yes/no balance, gold positions and cues (training split, weighted).
  const yesBy = new Map<string, Rate>();
  const first = new Rate();
  const last = new Rate();
  let expFirst = 0;
  let expLast = 0;
  const levelThird = [0, 0, 0];
  const cue = { absentName: new Rate(), presentName: new Rate(), absentWord: new Rate(), noAbsentWord: new Rate(), highOverlap: new Rate(), lowOverlap: new Rate() };
  const onlyOption = new Rate();
  let choiceAll = 0;
  let goldOnly = 0;
  let yesAll = new Rate();
  for (const c of splits.train) {
    const w = weightOf(c);
    const sw = stateWordSet(c.state);
    for (const [qid, q] of Object.entries(c.questions)) {
      const g = c.gold[qid];
      if (q.type === 'noul') {
        const yes = g === true;
        const r = yesBy.get(family(c)) ?? new Rate();
        r.add(yes, w);
        yesBy.set(family(c), r);
        yesAll.add(yes, w);
        const k = noulCues(q, sw.words, sw.norm);
        (k.absentName ? cue.absentName : cue.presentName).add(yes, w);
        (k.absentWord ? cue.absentWord : cue.noAbsentWord).add(yes, w);
        (k.overlap >= 0.5 ? cue.highOverlap : cue.lowOverlap).add(yes, w);
      } else if (q.type === 'choice') {
        const opts = Object.keys(q.criteria);
        const i = opts.indexOf(String(g));
        first.add(i === 0, w);
        last.add(i === opts.length - 1, w);
        expFirst += w / opts.length;
        expLast += w / opts.length;
        const found = optionsInState(q, sw.norm);
        choiceAll += w;
        if (found.length === 1) {
          onlyOption.add(found[0] === g, w);
          if (found[0] === g) goldOnly += w;
        }
      } else {
        const third = Math.min(2, Math.floor((3 * Number(g)) / q.criteria.length));
        levelThird[third]! += w;
      }
    }
  }
  tables.push({
    title: 'Yes/no balance per source (train, noul questions)',
    head: ['source', 'noul questions', 'yes rate'],
    rows: [...[...yesBy.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, r]) => [s, r.n, pct(r.rate)]), ['all (weighted)', yesAll.n, pct(yesAll.rate)]],
  });
  const lv = levelThird.reduce((a, b) => a + b, 0);
  tables.push({
    title: 'Where the gold sits (train, weighted)',
    head: ['measure', 'observed', 'chance'],
    rows: [
      ['choice: gold is the first option', pct(first.rate), pct(expFirst / first.all)],
      ['choice: gold is the last option', pct(last.rate), pct(expLast / last.all)],
      ['score: gold in the lowest third of the levels', pct(levelThird[0]! / lv), ''],
      ['score: gold in the middle third', pct(levelThird[1]! / lv), ''],
      ['score: gold in the highest third', pct(levelThird[2]! / lv), ''],
    ],
  });
  tables.push({
    title: 'Shortcut cues of the mixed training set (weighted)',
    note: 'Yes rate of noul questions on each side of a cue, and for choice how often the only option named in the state is the gold. Neutral: both sides near the overall yes rate.',
    head: ['cue', 'questions', 'yes / gold rate'],
    rows: [
      ['noul: a name or number absent from the state', cue.absentName.n, pct(cue.absentName.rate)],
      ['noul: no absent name or number', cue.presentName.n, pct(cue.presentName.rate)],
      ['noul: some content word absent from the state', cue.absentWord.n, pct(cue.absentWord.rate)],
      ['noul: every content word in the state', cue.noAbsentWord.n, pct(cue.noAbsentWord.rate)],
      ['noul: word overlap >= 50%', cue.highOverlap.n, pct(cue.highOverlap.rate)],
      ['noul: word overlap < 50%', cue.lowOverlap.n, pct(cue.lowOverlap.rate)],
      ['choice: exactly one option named in the state, and it is the gold', onlyOption.n, pct(onlyOption.rate)],
      ['choice: share of all choice questions whose gold is the only option named', '', pct(goldOnly / choiceAll)],
    ],
  });

  const dropped = built.dropped;
  const dropSources = [...new Set([...Object.keys(dropped.malformed), ...Object.keys(dropped.overlap), ...Object.keys(dropped.duplicate)])].sort();
  tables.push({
    title: 'Dropped cases',
    note: 'Duplicates: the same state and questions twice, or a public state also held out. Groups are dropped whole.',
    head: ['source', 'duplicate', 'overlap with measure-only sets', 'malformed'],
    rows: dropSources.map((s) => [s, dropped.duplicate[s] ?? 0, dropped.overlap[s] ?? 0, dropped.malformed[s] ?? 0]),
  });

  // The overlap check, on what was written: states of every case, questions of all but the corpus.
  let remaining = 0;
  const corpusQuestionMatches: string[] = [];
  for (const s of names)
    for (const c of splits[s]) {
      const corpus = c.source.startsWith('corpus/');
      if (strings(c.state).flatMap(units).some((u) => keys.has(u))) remaining++;
      else if (overlapOf(c, keys) !== null) {
        if (corpus) corpusQuestionMatches.push(`${c.source} ${c.id}: "${overlapOf(c, keys)}"`);
        else remaining++;
      }
    }
  tables.push({
    title: 'Overlap with the measure-only sets (normalised text)',
    note: `Checked against ${built.measureFiles.join(', ') || 'nothing (folders absent)'}: whole strings and sentences of at least 25 normalised characters.`,
    head: ['measure', 'value'],
    rows: [
      ['cases written whose state or (outside the corpus) question overlaps', remaining],
      ['cases dropped for overlap before writing', Object.values(dropped.overlap).reduce((a, b) => a + b, 0)],
      ['corpus cases sharing only a generic question wording (kept as written)', corpusQuestionMatches.length],
    ],
  });
  return { tables, overlap: { files: built.measureFiles, remaining, corpusQuestionMatches } };
}

export function reportMarkdown(report: Report): string {
  const out: string[] = ['# Training data report', '', 'Written by `npm run data` (src/training/data/).', ''];
  for (const t of report.tables) {
    out.push(`## ${t.title}`, '');
    if (t.note) out.push(t.note, '');
    out.push(`| ${t.head.join(' | ')} |`, `|${t.head.map(() => '---').join('|')}|`);
    for (const r of t.rows) out.push(`| ${r.map((x) => (typeof x === 'number' ? x.toLocaleString('en-US') : x)).join(' | ')} |`);
    out.push('');
  }
  if (report.overlap.corpusQuestionMatches.length) {
    out.push('Corpus question wordings also found in a measure-only set:', '');
    for (const m of report.overlap.corpusQuestionMatches) out.push(`- ${m}`);
    out.push('');
  }
  return out.join('\n');
}
