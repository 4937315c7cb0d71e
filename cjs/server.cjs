'use strict';
/**
 * CommonJS entry of evalmodel/server: `require('evalmodel/server')`. As for the main entry,
 * the server is an ES module, loaded with `import()`; `load()` gives the whole module.
 */
let loaded;

/** The full ES module of evalmodel/server, loaded once. */
function load() {
  loaded ??= import('../dist/src/server/index.js');
  return loaded;
}

module.exports = {
  load,
  serve: async (...args) => (await load()).serve(...args),
};
