/**
 * A training run's key names what it trains on: two data builds with the same number of
 * questions but a rewritten question or gold get different keys, so a run on new data never
 * resumes an old run's finished members (session 12: run H resumed run G's and wrote them again).
 */
import { describe, expect, it } from 'vitest';
import type { ReaderText } from '../src/heads/reader/batch.js';
import type { ReaderExample } from '../src/training/reader/examples.js';
import { initMemberDirs, memberDir, runKey, runSettings, soupValues, trainingDigest } from '../src/training/reader/train.js';

const text = (...ids: number[]): ReaderText => ({ tokens: new Float32Array(ids.length * 512), n: ids.length, ids });

function examples(gold = 2, level = 7): ReaderExample[] {
  return [
    { id: 'rated/goemotions/a', source: 'rated/goemotions', state: text(5, 6, 7), items: [{ type: 'score', instructions: text(1, 2), lines: [text(3), text(4), text(level)], gold, weight: 1 }] },
    { id: 'corpus/x', source: 'corpus/x', state: text(9), items: [{ type: 'noul', instructions: text(8), lines: [text(), text()], gold: 1, weight: 6 }] },
  ];
}

describe('trainingDigest and runKey', () => {
  it('are the same for the same examples and differ when a gold, a text or the order changes', () => {
    const digest = trainingDigest(examples());
    expect(trainingDigest(examples())).toBe(digest);
    expect(trainingDigest(examples(0))).not.toBe(digest);
    expect(trainingDigest(examples(2, 11))).not.toBe(digest);
    expect(trainingDigest([...examples()].reverse())).not.toBe(digest);
  });

  it('gives a run on rewritten data of the same size another key', () => {
    const settings = runSettings();
    expect(runKey(settings, examples())).toBe(runKey(settings, examples()));
    expect(runKey(settings, examples(0))).not.toBe(runKey(settings, examples()));
  });
});

describe('initMemberDirs and soupValues (TRAIN_INIT)', () => {
  it('starts member i from member i of one named run', () => {
    expect(initMemberDirs('aaa', 1, 2)).toEqual([memberDir('aaa', 1)]);
  });

  it('lays several runs\' members side by side, and refuses a count they cannot share evenly', () => {
    expect([0, 1, 2, 3].map((m) => initMemberDirs('aaa,bbb', m, 4))).toEqual([[memberDir('aaa', 0)], [memberDir('aaa', 1)], [memberDir('bbb', 0)], [memberDir('bbb', 1)]]);
    expect(() => initMemberDirs('aaa,bbb', 0, 3)).toThrow(/evenly/);
  });

  it('soups: a member of `A+B` starts from the average of their members, leaving out what one of them lacks', () => {
    expect(initMemberDirs('aaa+bbb', 1, 2)).toEqual([memberDir('aaa', 1), memberDir('bbb', 1)]);
    expect(soupValues([{ w: [1, 2], b: [0], 'ord.h': [5] }, { w: [3, 6], b: [1] }])).toEqual({ w: [2, 4], b: [0.5] });
  });
});
