/** Types of `require('evalmodel/server')`: an asynchronous door into the ES module (see server.cjs). */
type Api = typeof import('../dist/src/server/index.js');

/** The whole ES module of evalmodel/server, loaded once with `import()`. */
export declare function load(): Promise<Api>;
export declare function serve(...args: Parameters<Api['serve']>): ReturnType<Api['serve']>;
