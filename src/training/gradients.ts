/**
 * tfjs-core registers gradient functions only through `register_all_gradients`, which ships as
 * ESM with extensionless imports that Node cannot resolve. Training bundles it once with
 * esbuild (a dev dependency) into the local cache and imports it; the registry it fills is
 * tfjs' process-global one, so the kernels of the main tfjs-core instance get the gradients.
 * @module
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './data.js';

export async function registerGradients(): Promise<void> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const version = (require('@tensorflow/tfjs-core/package.json') as { version: string }).version;
  const out = path.join(repoRoot(), '.cache', `tfjs-gradients-${version}.mjs`);
  if (!existsSync(out)) {
    mkdirSync(path.dirname(out), { recursive: true });
    const { buildSync } = (await import('esbuild')) as typeof import('esbuild');
    buildSync({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'warning' });
  }
  await import(pathToFileURL(out).href);
}
