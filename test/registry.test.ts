import { describe, expect, it } from 'vitest';
import { ModelRegistry, VERSIONED_ID, type RegistryManifest } from '../src/registry/index.js';
import { UnknownModelError } from '../src/errors.js';

describe('ModelRegistry (weights/manifest.json)', () => {
  const registry = ModelRegistry.load();

  it('resolves both aliases to evalmodel-1.13.0', () => {
    expect(registry.resolve('evalmodel-latest')).toBe('evalmodel-1.13.0');
    expect(registry.resolve('evalmodel-preview')).toBe('evalmodel-1.13.0');
  });

  it('accepts the versioned id though the listing does not contain it', () => {
    expect(registry.resolve('evalmodel-1.13.0')).toBe('evalmodel-1.13.0');
    expect(registry.list().models.map((m) => m.name)).not.toContain('evalmodel-1.13.0');
  });

  it('lists the aliases with description and YYYY-MM-DD release date', () => {
    const { models } = registry.list();
    expect(models.map((m) => m.name)).toEqual(['evalmodel-latest', 'evalmodel-preview']);
    for (const m of models) {
      expect(m.description.length).toBeGreaterThan(0);
      expect(m.release_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('throws UnknownModelError naming the model, for unknown and inherited names', () => {
    for (const name of ['evalmodel-9.9.9', 'gpt-4', '', 'constructor', '__proto__', 'toString']) {
      try {
        registry.resolve(name);
        expect.unreachable(`'${name}' resolved`);
      } catch (e) {
        expect(e).toBeInstanceOf(UnknownModelError);
        expect((e as UnknownModelError).model).toBe(name);
        expect((e as Error).message).toContain(`'${name}'`);
      }
    }
  });

  it('rejects inconsistent manifests at load', () => {
    const base: RegistryManifest = { aliases: {}, listed: [], models: {} };
    expect(() => ModelRegistry.fromManifest({ ...base, aliases: { x: 'evalmodel-1.0.0' } })).toThrow(/unknown model/);
    expect(() => ModelRegistry.fromManifest({ ...base, models: { 'model-1': {} as never } })).toThrow(/not of the form/);
  });

  it('versioned ids have the shape evalmodel-<major>.<minor>.<patch>', () => {
    expect(VERSIONED_ID.test('evalmodel-1.13.0')).toBe(true);
    expect(VERSIONED_ID.test('evalmodel-1.13')).toBe(false);
    expect(VERSIONED_ID.test('evalmodel-01.2.3')).toBe(false);
  });

  it('checks entries of the transformers-nli kind and makes their folders absolute', () => {
    const entry = { kind: 'transformers-nli' as const, description: 'nli', release_date: '2026-01-01' };
    const withModel = (model: object): RegistryManifest => ({ aliases: {}, listed: [], models: { 'evalmodel-2.0.0': model as never } });
    expect(() => ModelRegistry.fromManifest(withModel(entry))).toThrow(/exactly one of 'path'/);
    expect(() => ModelRegistry.fromManifest(withModel({ ...entry, path: 'a', hub: 'b' }))).toThrow(/exactly one of 'path'/);
    expect(() => ModelRegistry.fromManifest(withModel({ ...entry, hub: 'x/y', temperature: { choice: 0 } }))).toThrow(/temperature.choice/);
    expect(() => ModelRegistry.fromManifest(withModel({ ...entry, hub: 'x/y', batchSize: 0 }))).toThrow(/batchSize/);
    expect(() => ModelRegistry.fromManifest(withModel({ ...entry, kind: 'other' }))).toThrow(/unknown kind 'other'/);
    const registry = ModelRegistry.fromManifest(withModel({ ...entry, path: 'models/nli' }), '/srv/app');
    expect(registry.spec('evalmodel-2.0.0')).toMatchObject({ id: 'evalmodel-2.0.0', kind: 'transformers-nli', path: '/srv/app/models/nli' });
  });

  it('withModel adds a model with its alias and listing, and refuses taken names', () => {
    const added = registry.withModel('evalmodel-0.1.0', { kind: 'transformers-nli', description: 'mine', release_date: '2026-01-01', path: '/m' }, 'evalmodel-nli');
    expect(added.resolve('evalmodel-nli')).toBe('evalmodel-0.1.0');
    expect(added.list().models.at(-1)).toEqual({ name: 'evalmodel-nli', description: 'mine', release_date: '2026-01-01' });
    expect(added.resolve('evalmodel-latest')).toBe('evalmodel-1.13.0');
    expect(() => added.withModel('evalmodel-0.1.0', { kind: 'transformers-nli', description: '', release_date: '2026-01-01', hub: 'x' })).toThrow(/already/);
    expect(() => registry.withModel('evalmodel-0.3.0', { kind: 'transformers-nli', description: '', release_date: '2026-01-01', hub: 'x' }, 'evalmodel-latest')).toThrow(/already/);
  });
});
