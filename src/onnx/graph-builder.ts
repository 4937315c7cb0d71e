/**
 * Writing ONNX models in memory with `onnx-proto`'s protobuf encoder: a small builder of nodes
 * and initializers, shared by every graph the project builds from its own weights at load time
 * (the encoder's, encoder/onnx-graph.ts; the reader's, heads/reader/onnx-graph.ts), so no ONNX
 * file ships in the package.
 *
 * Opset 17 (LayerNormalization is an ONNX op there).
 * @module
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type INodeProto = onnxProto.onnx.INodeProto;
type ITensorProto = onnxProto.onnx.ITensorProto;
type IAttributeProto = onnxProto.onnx.IAttributeProto;
export type IValueInfoProto = onnxProto.onnx.IValueInfoProto;

const OPSET = 17;
const IR_VERSION = 8;

/** Element types of the values declared here. */
export const { FLOAT, INT64 } = onnx.TensorProto.DataType;

export type Attribute = number | number[] | string | { float: number };

/** Collects nodes and initializers; every value gets a fresh name. */
export class GraphBuilder {
  readonly nodes: INodeProto[] = [];
  readonly initializers: ITensorProto[] = [];
  private count = 0;

  private fresh(prefix: string): string {
    return `${prefix}_${this.count++}`;
  }

  floats(values: Float32Array, dims: readonly number[], name = this.fresh('w')): string {
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength).slice();
    this.initializers.push({ name, dims: [...dims], dataType: onnx.TensorProto.DataType.FLOAT, rawData: bytes });
    return name;
  }

  /** A float constant of any shape with every value `v` (scalars: dims []). */
  fill(v: number, dims: readonly number[] = []): string {
    return this.floats(new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(v), dims);
  }

  int64s(values: readonly number[]): string {
    const name = this.fresh('i');
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    this.initializers.push({ name, dims: [values.length], dataType: onnx.TensorProto.DataType.INT64, rawData: new Uint8Array(data.buffer) });
    return name;
  }

  /** Adds a node with one output (or `outputs` named ones) and returns its output names. */
  op(type: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}, outputs: readonly string[] = [this.fresh(type)]): string {
    const attribute: IAttributeProto[] = Object.entries(attributes).map(([name, value]) => {
      if (Array.isArray(value)) return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: value };
      if (typeof value === 'string') return { name, type: onnx.AttributeProto.AttributeType.STRING, s: new TextEncoder().encode(value) };
      if (typeof value === 'object') return { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: value.float };
      return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
    });
    this.nodes.push({ opType: type, input: [...inputs], output: [...outputs], name: this.fresh(`n_${type}`), attribute });
    return outputs[0]!;
  }

  /** `x W + b` (then ReLU), x two-dimensional. */
  dense(x: string, w: { kernel: string; bias: string }, relu = false): string {
    const y = this.op('Gemm', [x, w.kernel, w.bias]);
    return relu ? this.op('Relu', [y]) : y;
  }

  model(name: string, inputs: IValueInfoProto[], outputs: IValueInfoProto[]): Uint8Array {
    const graph = { name, node: this.nodes, initializer: this.initializers, input: inputs, output: outputs };
    const model = { irVersion: IR_VERSION, producerName: 'evalmodel', opsetImport: [{ domain: '', version: OPSET }], graph };
    return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
  }
}

/** A value's declaration: element type and dimensions (numbers, or names of free dimensions). */
export function valueInfo(name: string, elemType: number, dims: readonly (number | string)[]): IValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}
