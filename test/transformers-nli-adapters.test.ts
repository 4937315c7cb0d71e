/**
 * A `transformers-nli` model behind every adapter, on the tiny random model written at test
 * time: the HTTP server (its own engine from `engineConfig.modelDir`, as `serve --model-dir`
 * builds it), the engine pool (the same answers as one engine), and the built command line
 * (`evalmodel ask --model <folder>`, `evalmodel models --model-dir`, `serve --model-dir` flags).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createEnginePool, type Questions, type SystemOneResponse } from '../src/index.js';
import { parseServeArgs } from '../src/cli/serve.js';
import { serve } from '../src/server/index.js';
import { hasTransformers, removeTinyModels, tinyModel } from './nli-helpers.js';
import { authed } from './server/helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'dist/src/cli/main.js');
const STATE = 'My package never arrived and nobody answers the phone.';
const QUESTIONS: Questions = {
  late: { type: 'noul', instructions: 'Is there a delivery problem?' },
  team: { type: 'choice', instructions: 'Which team?', criteria: { shipping: null, billing: 'Payments and refunds' } },
  mood: { type: 'score', instructions: 'How upset?', criteria: ['calm', 'annoyed', 'furious'] },
};
const workerExecArgv = ['--import', new URL('./pool-ts-register.mjs', import.meta.url).href];

describe.skipIf(!hasTransformers)('transformers-nli models behind the adapters', () => {
  let folder: string;
  beforeAll(() => {
    folder = tinyModel({ maxLength: 128 });
  });
  afterAll(() => removeTinyModels());

  it('the server lists the folder under its alias and answers with its versioned id', async () => {
    const handle = await serve({ host: '127.0.0.1', port: 0, log: false, keys: ['test-key'], workers: 1, engineConfig: { modelDir: folder } });
    try {
      const models = await authed(handle.url, '/v1/models');
      expect(models.status).toBe(200);
      expect(models.json.models.map((m: { name: string }) => m.name)).toEqual(['evalmodel-latest', 'evalmodel-preview', 'evalmodel-nli']);
      const reply = await authed(handle.url, '/v1/systemone', { body: { model: 'evalmodel-nli', state: STATE, questions: QUESTIONS } });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json.model).toBe('evalmodel-0.1.0');
      expect(reply.json).toEqual(await handle.engine.evaluate({ model: 'evalmodel-0.1.0', state: STATE, questions: QUESTIONS }));
      const invalid = await authed(handle.url, '/v1/systemone', { body: { model: 'evalmodel-nli', state: STATE, questions: {} } });
      expect(invalid.status).toBe(422);
    } finally {
      await handle.close();
    }
  });

  it('an engine pool answers exactly as one engine, and counts tokens with the model tokenizer', async () => {
    const [single, pool] = await Promise.all([
      createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli' }),
      createEnginePool({ modelDir: folder, defaultModel: 'evalmodel-nli', workers: 2, workerExecArgv }),
    ]);
    try {
      for (const state of [STATE, { order: 7, status: 'lost' }]) expect(await pool.evaluate(state, QUESTIONS)).toEqual(await single.evaluate(state, QUESTIONS));
      expect(pool.countTokens(STATE)).toBe(single.countTokens(STATE));
      expect(pool.listModels()).toEqual(single.listModels());
    } finally {
      await Promise.all([single.close(), pool.close()]);
    }
  });

  it('serve takes --model-dir, --manifest and --allow-remote (and their environment variables)', () => {
    const parsed = parseServeArgs(['--model-dir', folder, '--manifest', 'm.json', '--allow-remote'], {});
    if (parsed.help) throw new Error('help');
    // `threads` is the command's default for the built-in encoder (cores, with onnxruntime-node).
    const { threads: _threads, ...given } = parsed.options.engineConfig ?? {};
    expect(given).toEqual({ modelDir: folder, manifest: path.resolve('m.json'), allowRemoteModels: true });
    const fromEnv = parseServeArgs([], { EVALMODEL_MODEL_DIR: folder });
    if (fromEnv.help) throw new Error('help');
    const { threads: _envThreads, ...fromEnvGiven } = fromEnv.options.engineConfig ?? {};
    expect(fromEnvGiven).toEqual({ modelDir: folder });
  });

  describe('the built command line', () => {
    beforeAll(() => {
      spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
      if (!existsSync(MAIN)) throw new Error('dist/src/cli/main.js was not built: run npm run build');
    }, 300_000);
    const cli = (args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

    it('ask --model <folder> answers with the folder model', async () => {
      const r = cli(['ask', STATE, '--noul', 'Is there a delivery problem?', '--choice', 'Which team?=shipping,billing', '--model', folder, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const res = JSON.parse(r.stdout) as SystemOneResponse;
      expect(res.model).toBe('evalmodel-0.1.0');
      const engine = await createEngine({ modelDir: folder });
      try {
        const expected = await engine.evaluate({
          model: 'evalmodel-nli',
          state: STATE,
          questions: {
            'Is there a delivery problem?': { type: 'noul', instructions: 'Is there a delivery problem?' },
            'Which team?': { type: 'choice', instructions: 'Which team?', criteria: { shipping: null, billing: null } },
          },
        });
        expect(res).toEqual(expected);
      } finally {
        await engine.close();
      }
    });

    it('a folder that is not a model is a usage error naming the missing files', () => {
      const r = cli(['ask', STATE, '--noul', 'x?', '--model', path.join(ROOT, 'docs')]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/missing config.json/);
    });

    it('models --model-dir lists the alias with its versioned id', () => {
      const r = cli(['models', '--model-dir', folder]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^evalmodel-nli\s+evalmodel-0\.1\.0\s+\d{4}-\d{2}-\d{2}\s+Zero-shot NLI/m);
    });
  });
});
