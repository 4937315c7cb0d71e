/**
 * Assembles the hand-written WebAssembly kernels (src/kernels/*.wat) into TypeScript modules
 * holding their bytes as base64 (src/kernels/*-wasm.ts), so that the library needs no file
 * lookup and no assembler at run time, in Node or in a browser. Run `npm run kernels:build`
 * after editing a .wat file; test/kernels.test.ts fails while a generated module is stale.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import initWabt from 'wabt';

export const KERNELS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'kernels');

/** The binary of a WAT source (SIMD enabled). */
export async function assembleWat(name, source) {
  const wabt = await initWabt();
  const module = wabt.parseWat(name, source, { simd: true });
  try {
    module.validate();
    return Uint8Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

/** The generated TypeScript module for a kernel's binary. */
export function kernelModule(watFile, bytes) {
  const constant = path.basename(watFile, '.wat').toUpperCase().replace(/[^A-Z0-9]/g, '_') + '_WASM';
  const base64 = Buffer.from(bytes).toString('base64');
  const lines = base64.match(/.{1,96}/g) ?? [];
  return `// Generated from ${watFile} by scripts/assemble-kernels.mjs (npm run kernels:build). Do not edit.
/** The assembled module, base64. */
export const ${constant} =
${lines.map((l) => `  '${l}'`).join(' +\n')};
`;
}

/** Every kernel: its .wat file name and the path of its generated module. */
export function kernelFiles() {
  return readdirSync(KERNELS_DIR)
    .filter((f) => f.endsWith('.wat'))
    .map((f) => ({ wat: f, module: path.join(KERNELS_DIR, f.replace(/\.wat$/, '-wasm.ts')) }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const { wat, module } of kernelFiles()) {
    const bytes = await assembleWat(wat, readFileSync(path.join(KERNELS_DIR, wat), 'utf8'));
    writeFileSync(module, kernelModule(wat, bytes));
    console.log(`${wat}: ${bytes.length} bytes -> ${path.relative(process.cwd(), module)}`);
  }
}
