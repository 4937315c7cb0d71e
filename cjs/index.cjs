'use strict';
/**
 * CommonJS entry of evalmodel: `require('evalmodel')`.
 *
 * The library is an ES module (its engine finds its weights, WebAssembly kernel and worker
 * threads from `import.meta.url`), and Node 20 cannot `require` an ES module. So this entry
 * does not copy the API: it loads the real one with `import()`, which CommonJS may call.
 * Everything here is asynchronous; `load()` gives the whole ES module (error classes,
 * validateRequest, renderState, ...) for what has no async wrapper below.
 */
let loaded;

/** The full ES module API, loaded once. */
function load() {
  loaded ??= import('../dist/src/index.js');
  return loaded;
}

module.exports = {
  load,
  createEngine: async (...args) => (await load()).createEngine(...args),
  createEnginePool: async (...args) => (await load()).createEnginePool(...args),
  defaultEngine: async (...args) => (await load()).defaultEngine(...args),
  evaluate: async (...args) => (await load()).evaluate(...args),
  listModels: async (...args) => (await load()).listModels(...args),
};
