/** Types of `require('evalmodel')`: asynchronous doors into the ES module (see index.cjs). */
type Api = typeof import('../dist/src/index.js');

/** The whole ES module API, loaded once with `import()`. */
export declare function load(): Promise<Api>;
export declare function createEngine(...args: Parameters<Api['createEngine']>): ReturnType<Api['createEngine']>;
export declare function createEnginePool(...args: Parameters<Api['createEnginePool']>): ReturnType<Api['createEnginePool']>;
export declare function defaultEngine(...args: Parameters<Api['defaultEngine']>): ReturnType<Api['defaultEngine']>;
export declare const evaluate: Api['evaluate'];
export declare function listModels(): ReturnType<Api['listModels']>;
