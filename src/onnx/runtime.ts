/**
 * Loading onnxruntime-node, an optional dependency (its install can fail or be left out): at
 * run time by a name tsc and bundlers do not follow, once per thread. Only the few calls the
 * project makes are typed, by hand. Shared by the encoder's runner and the reader's.
 * @module
 */

/** The part of onnxruntime's Tensor used here. */
export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}

export interface OrtSession {
  run(feeds: Record<string, OrtTensor>, fetches?: readonly string[]): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}

/** The part of the `onnxruntime-node` module used here. */
export interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: readonly number[]) => OrtTensor;
  env: { versions?: { node?: string } };
}

const loaded = new Map<string, Promise<OrtModule>>();

/** Loads onnxruntime-node once per thread; rejects when it is not installed or cannot load. */
export function loadOnnxRuntime(name = ['onnxruntime', 'node'].join('-')): Promise<OrtModule> {
  // The package name is built at run time so that bundlers and tsc do not require it.
  let module = loaded.get(name);
  if (!module) {
    module = import(name).then((m: { default?: OrtModule } & Partial<OrtModule>) => {
      const ort = m.InferenceSession ? (m as OrtModule) : m.default;
      if (!ort?.InferenceSession) throw new Error(`'${name}' has no InferenceSession`);
      return ort;
    });
    loaded.set(name, module);
    module.catch(() => loaded.delete(name));
  }
  return module;
}

/** Session options for `threads` intra-op threads on the CPU execution provider. */
export function sessionOptions(threads: number): Record<string, unknown> {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // Threads that spin waiting for work would take cores the other engines compute on.
    extra: { session: { intra_op: { allow_spinning: threads > 1 ? '1' : '0' } } },
  };
}

/** A float output of a run, or an error naming it. */
export function floatOutput(t: OrtTensor | undefined, name: string): Float32Array {
  if (!t || !(t.data instanceof Float32Array)) throw new Error(`onnxruntime: no float output '${name}'`);
  return t.data;
}
