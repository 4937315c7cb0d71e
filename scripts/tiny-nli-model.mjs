#!/usr/bin/env node
/**
 * Writes a tiny BERT-style NLI cross-encoder in the transformers.js folder layout, with random
 * weights: config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx. It answers
 * nonsense, but through exactly the code path of a real downloaded model (tokenizer pipeline,
 * pair encoding, onnxruntime session, id2label), so tests and the optional-install check run
 * without the network. Nothing here downloads anything.
 *
 *   node scripts/tiny-nli-model.mjs <folder> [--seed N] [--max-length N]
 *
 * The graph: token + position + segment embeddings, one single-head self-attention layer with
 * the attention mask (padding gets -10000, as BERT does), the [CLS] row, tanh, 3 logits.
 * Built with onnx-proto (protobufjs) at opset 11, which onnxruntime 1.14 runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = ['the', 'a', 'is', 'not', 'no', 'yes', 'and', 'of', 'to', 'customer', 'refund', 'late', 'broken', 'happy', 'angry', 'level', 'answer'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PUNCT = '.,:;?!-()\'"/`[]{}_=+*&%$#@<>|~^\\';

/** The vocabulary: specials, whole words, single characters and their ## continuations. */
function vocabulary() {
  const pieces = [...new Set([...SPECIALS, ...WORDS, ...LETTERS, ...PUNCT, ...[...LETTERS].map((c) => `##${c}`)])];
  return Object.fromEntries(pieces.map((p, i) => [p, i]));
}

/** mulberry32: a small seeded generator, so a seed always gives the same weights. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function floatTensor(name, dims, next, scale) {
  const values = Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => (next() * 2 - 1) * scale);
  return onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, floatData: values });
}

function constant(name, dims, values, dataType = onnx.TensorProto.DataType.FLOAT) {
  const field = dataType === onnx.TensorProto.DataType.INT64 ? 'int64Data' : 'floatData';
  return onnx.TensorProto.create({ name, dims, dataType, [field]: values });
}

function node(opType, inputs, outputs, attributes = {}) {
  const attribute = Object.entries(attributes).map(([name, value]) => {
    if (Array.isArray(value)) return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: value });
    if (Number.isInteger(value)) return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i: value });
    return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f: value });
  });
  return onnx.NodeProto.create({ opType, input: inputs, output: outputs, attribute, name: outputs[0] });
}

function valueInfo(name, elemType, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })),
        }),
      }),
    }),
  });
}

/** The ONNX model's bytes. */
export function tinyNliOnnx({ vocabSize, maxLength, hidden = 16, labels = 3, seed = 1 }) {
  const next = random(seed);
  const INT64 = onnx.TensorProto.DataType.INT64;
  const FLOAT = onnx.TensorProto.DataType.FLOAT;
  const initializer = [
    floatTensor('word_embeddings', [vocabSize, hidden], next, 1),
    floatTensor('position_embeddings', [maxLength, hidden], next, 0.3),
    floatTensor('token_type_embeddings', [2, hidden], next, 0.3),
    floatTensor('wq', [hidden, hidden], next, 0.5),
    floatTensor('wk', [hidden, hidden], next, 0.5),
    floatTensor('wv', [hidden, hidden], next, 0.5),
    floatTensor('pooler', [hidden, hidden], next, 0.5),
    floatTensor('classifier', [hidden, labels], next, 1),
    floatTensor('classifier_bias', [labels], next, 0.1),
    constant('zero', [], [0], INT64),
    constant('one', [], [1], INT64),
    constant('one_f', [], [1]),
    constant('neg', [], [-10000]),
    constant('scale', [], [1 / Math.sqrt(hidden)]),
  ];
  const nodes = [
    node('Gather', ['word_embeddings', 'input_ids'], ['words']),
    node('Gather', ['token_type_embeddings', 'token_type_ids'], ['segments']),
    node('Shape', ['input_ids'], ['shape']),
    node('Gather', ['shape', 'one'], ['seq_len'], { axis: 0 }),
    node('Range', ['zero', 'seq_len', 'one'], ['positions']),
    node('Gather', ['position_embeddings', 'positions'], ['places']),
    node('Add', ['words', 'segments'], ['sum0']),
    node('Add', ['sum0', 'places'], ['x']),
    node('MatMul', ['x', 'wq'], ['q']),
    node('MatMul', ['x', 'wk'], ['k']),
    node('MatMul', ['x', 'wv'], ['v']),
    node('Transpose', ['k'], ['kt'], { perm: [0, 2, 1] }),
    node('MatMul', ['q', 'kt'], ['raw_scores']),
    node('Mul', ['raw_scores', 'scale'], ['scores']),
    node('Cast', ['attention_mask'], ['mask_f'], { to: FLOAT }),
    node('Sub', ['one_f', 'mask_f'], ['masked']),
    node('Mul', ['masked', 'neg'], ['bias2']),
    node('Unsqueeze', ['bias2'], ['bias'], { axes: [1] }),
    node('Add', ['scores', 'bias'], ['biased']),
    node('Softmax', ['biased'], ['attention'], { axis: 2 }),
    node('MatMul', ['attention', 'v'], ['context']),
    node('Add', ['x', 'context'], ['y']),
    node('Gather', ['y', 'zero'], ['cls'], { axis: 1 }),
    node('MatMul', ['cls', 'pooler'], ['pooled_raw']),
    node('Tanh', ['pooled_raw'], ['pooled']),
    node('MatMul', ['pooled', 'classifier'], ['logits_raw']),
    node('Add', ['logits_raw', 'classifier_bias'], ['logits']),
  ];
  const graph = onnx.GraphProto.create({
    name: 'tiny-nli',
    node: nodes,
    initializer,
    input: [
      valueInfo('input_ids', INT64, ['batch', 'sequence']),
      valueInfo('attention_mask', INT64, ['batch', 'sequence']),
      valueInfo('token_type_ids', INT64, ['batch', 'sequence']),
    ],
    output: [valueInfo('logits', FLOAT, ['batch', labels])],
  });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: 'evalmodel tiny-nli-model',
    opsetImport: [{ domain: '', version: 11 }],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

/** tokenizer.json: a lower-casing BERT WordPiece tokenizer over {@link vocabulary}. */
export function tinyTokenizerJson() {
  const vocab = vocabulary();
  const special = (content) => ({ id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const token = (id, typeId) => ({ SpecialToken: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [token('[CLS]', 0), { Sequence: { id: 'A', type_id: 0 } }, token('[SEP]', 0)],
      pair: [token('[CLS]', 0), { Sequence: { id: 'A', type_id: 0 } }, token('[SEP]', 0), { Sequence: { id: 'B', type_id: 1 } }, token('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/**
 * Writes the whole folder. `labels` are the id2label names in output order (a real MNLI model's
 * order differs from model to model, which is why the engine reads them from config.json).
 */
export function writeTinyNliModel(folder, { seed = 1, maxLength = 64, labels = ['contradiction', 'entailment', 'neutral'] } = {}) {
  const vocabSize = Object.keys(vocabulary()).length;
  mkdirSync(path.join(folder, 'onnx'), { recursive: true });
  const id2label = Object.fromEntries(labels.map((l, i) => [String(i), l]));
  const label2id = Object.fromEntries(labels.map((l, i) => [l, i]));
  const config = {
    model_type: 'bert',
    architectures: ['BertForSequenceClassification'],
    vocab_size: vocabSize,
    hidden_size: 16,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    max_position_embeddings: maxLength,
    type_vocab_size: 2,
    id2label,
    label2id,
  };
  writeFileSync(path.join(folder, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(path.join(folder, 'tokenizer.json'), JSON.stringify(tinyTokenizerJson()));
  writeFileSync(
    path.join(folder, 'tokenizer_config.json'),
    `${JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: maxLength, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }, null, 2)}\n`,
  );
  writeFileSync(path.join(folder, 'onnx', 'model.onnx'), tinyNliOnnx({ vocabSize, maxLength, labels: labels.length, seed }));
  return folder;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const folder = args.find((a) => !a.startsWith('--'));
  if (!folder) {
    process.stderr.write('usage: node scripts/tiny-nli-model.mjs <folder> [--seed N] [--max-length N]\n');
    process.exit(2);
  }
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  writeTinyNliModel(path.resolve(folder), { seed: option('--seed', 1), maxLength: option('--max-length', 64) });
  process.stdout.write(`wrote a tiny random NLI model to ${path.resolve(folder)}\n`);
}
