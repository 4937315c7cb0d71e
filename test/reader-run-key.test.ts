/**
 * A training run's key names what it trains on: two data builds with the same number of
 * questions but a rewritten question or gold get different keys, so a run on new data never
 * resumes an old run's finished members (session 12: run H resumed run G's and wrote them again).
 */
import { describe, expect, it } from 'vitest';
import type { ReaderText } from '../src/heads/reader/batch.js';
import type { ReaderExample } from '../src/training/reader/examples.js';
import { paramShapes } from '../src/heads/reader/architecture.js';
import { initSources, initValues, runKey, runSettings, shippedReader, soupValues, trainingDigest } from '../src/training/reader/train.js';

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

describe('initSources, initValues and soupValues (TRAIN_INIT)', () => {
  it('starts member i from member i of one named run', () => {
    expect(initSources('aaa', 1, 2)).toEqual([{ run: 'aaa', member: 1 }]);
  });

  it('lays several runs\' members side by side, and refuses a count they cannot share evenly', () => {
    expect([0, 1, 2, 3].map((m) => initSources('aaa,bbb', m, 4))).toEqual([[{ run: 'aaa', member: 0 }], [{ run: 'aaa', member: 1 }], [{ run: 'bbb', member: 0 }], [{ run: 'bbb', member: 1 }]]);
    expect(() => initSources('aaa,bbb', 0, 3)).toThrow(/evenly/);
  });

  it('soups: a member of `A+B` starts from the average of their members, leaving out what one of them lacks', () => {
    expect(initSources('aaa+bbb', 1, 2)).toEqual([{ run: 'aaa', member: 1 }, { run: 'bbb', member: 1 }]);
    expect(soupValues([{ w: [1, 2], b: [0], 'ord.h': [5] }, { w: [3, 6], b: [1] }])).toEqual({ w: [2, 4], b: [0.5] });
  });

  it('`weights` starts from the reader shipped in weights/, member by member, and refuses a member it lacks', () => {
    const { manifest, members } = shippedReader();
    const names = Object.keys(paramShapes(manifest.shape));
    for (let m = 0; m < manifest.members; m++) {
      const values = initValues({ run: 'weights', member: m });
      expect(Object.keys(values)).toEqual(names);
      for (const name of names) expect(values[name]).toEqual(Array.from(members[m]![name]!));
    }
    // The members differ (two seeds), so a mix-up of the order would show.
    expect(initValues({ run: 'weights', member: 0 })[names[0]!]).not.toEqual(initValues({ run: 'weights', member: 1 })[names[0]!]);
    expect(() => initValues({ run: 'weights', member: manifest.members })).toThrow(/has 2 members/);
  });

  it('gives a run from the shipped reader a key of its own', () => {
    const settings = runSettings();
    const key = runKey({ ...settings, init: 'weights' }, examples());
    expect(key).not.toBe(runKey({ ...settings, init: '' }, examples()));
    expect(key).not.toBe(runKey({ ...settings, init: 'weightz' }, examples()));
  });
});
