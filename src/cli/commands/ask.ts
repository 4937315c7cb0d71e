/**
 * `evalmodel ask`: evaluate questions about a state on the in-process engine and print the
 * answers as probability bars (or the raw SystemOneResponse with `--json`).
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { BackendName, EngineConfig } from '../../engine/contract.js';
import { modelDirId } from '../../engine/registry-config.js';
import { RequestValidationError, UnknownModelError } from '../../errors.js';
import type { Question, State, SystemOneResponse } from '../../types.js';
import { explainRequest, renderExplanations } from '../explain.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { backendLine, renderResponse } from '../format.js';
import { readAll, type CliIO } from '../io.js';
import { wantsHelp } from '../help.js';
import { startProgress } from '../progress.js';
import { buildQuestions, type QuestionFlag } from '../questions.js';

/** One line for the top-level help's list of commands. */
export const summary = 'Evaluate questions about a state and print the answers';

/** The text of `evalmodel ask --help`. */
export const help = `Usage: evalmodel ask [state] [options]

${summary}, each with its probabilities as bars
and, for choice and score, the confidence. The model runs in this process.

The state is the positional argument, or the file given with --file, or standard input
when neither is given and input is piped. Question flags may be repeated and mixed; each
question's text is also its id in the output.

Questions:
  --noul <question>              a yes/no question, answered as p(yes)
  --choice <question=a,b,c>      pick one option; options are comma-separated (\\, for a comma)
  --score <question=l0,l1,...>   rate on ordered levels, lowest first (level = position)

Options:
  -f, --file <path>      read the state from a file ('-' for standard input)
      --json-state       parse the state as JSON (an object, an array or a string)
      --request <path>   send a whole SystemOneRequest body from a JSON file ('-' for stdin)
                         instead of a state and question flags
  -m, --model <name>     model alias or versioned id (default evalmodel-latest), or a model
                         folder in the transformers.js layout (an NLI cross-encoder; needs the
                         optional package @xenova/transformers)
      --manifest <file>  the model registry to use instead of the built-in one
      --allow-remote     let a registry's hub ids be downloaded (default: offline)
      --backend <name>   encoder backend: onnxruntime-node, tensorflow, wasm or cpu
                         (default: the first that starts and passes its self-test)
      --json             print the raw SystemOneResponse (and a 422 body on validation errors)
      --explain          show, per question, what the exact-answer stage read, bound and
                         computed, or why it left the question to the model
      --no-exact         send every question to the model (turn the exact-answer stage off)
  -h, --help             show this help

Examples:
  evalmodel ask "The parcel arrived broken and late." --noul "Is the customer unhappy?"
  evalmodel ask -f ticket.txt --choice "Which team?=shipping,billing,technical" \\
      --score "How upset is the customer?=calm,annoyed,upset,furious"
  echo '{"order": 42, "status": "lost"}' | evalmodel ask --json-state --noul "Is the order lost?" --json
  evalmodel ask "The parcel arrived broken." --noul "Is the customer unhappy?" --model ./nli-deberta-v3-xsmall

Exit status: 0 answered; 2 bad command line, invalid request (each 422 problem is printed
with its location) or unknown model; 1 the model failed to load or run.
`;

const OPTIONS = {
  file: { type: 'string', short: 'f' },
  'json-state': { type: 'boolean' },
  request: { type: 'string' },
  noul: { type: 'string', multiple: true },
  choice: { type: 'string', multiple: true },
  score: { type: 'string', multiple: true },
  model: { type: 'string', short: 'm' },
  manifest: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  backend: { type: 'string' },
  json: { type: 'boolean' },
  explain: { type: 'boolean' },
  'no-exact': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const BACKENDS: readonly BackendName[] = ['onnxruntime-node', 'tensorflow', 'wasm', 'cpu'];

async function readSource(path: string, io: CliIO, what: string): Promise<string> {
  if (path === '-') return readAll(io.stdin);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`cannot read ${what} '${path}': ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, EXIT.usage);
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`, 'ask');
  }
}

/** Builds the request body from the command line, reading the state or request as needed. */
/**
 * The engine options that --model <folder>, --manifest and --allow-remote give, and the model
 * name the request then uses (a folder's versioned id).
 */
function modelOptions(values: { model?: string | undefined; manifest?: string | undefined; 'allow-remote'?: boolean | undefined }): { config: EngineConfig; model: string | undefined } {
  const config: EngineConfig = {};
  if (values.manifest !== undefined) config.manifest = path.resolve(values.manifest);
  if (values['allow-remote']) config.allowRemoteModels = true;
  let model = values.model;
  if (model !== undefined && existsSync(model) && statSync(model).isDirectory()) {
    config.modelDir = path.resolve(model);
    try {
      model = modelDirId(config.modelDir);
    } catch (error) {
      throw new CliError(`cannot use model folder '${values.model}': ${(error as Error).message}`, EXIT.usage);
    }
  }
  return { config, model };
}

async function buildRequest(
  argv: string[],
  io: CliIO,
): Promise<{ body: Record<string, unknown>; json: boolean; explain: boolean; exact: boolean; backend?: BackendName; config: EngineConfig }> {
  const { values, positionals, tokens } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  if (values.backend !== undefined && !BACKENDS.includes(values.backend as BackendName)) {
    throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}, not '${values.backend}'`, 'ask');
  }
  const backend = values.backend as BackendName | undefined;
  const { config, model: chosen } = modelOptions(values);
  const model = chosen ?? 'evalmodel-latest';
  const flags: QuestionFlag[] = [];
  for (const token of tokens) {
    if (token.kind === 'option' && (token.name === 'noul' || token.name === 'choice' || token.name === 'score')) {
      flags.push({ type: token.name, value: token.value ?? '' });
    }
  }

  if (values.request !== undefined) {
    if (flags.length > 0 || positionals.length > 0 || values.file !== undefined || values['json-state']) {
      throw new UsageError('--request sends a whole body: give no state, --file, --json-state or question flags with it', 'ask');
    }
    const body = parseJson(await readSource(values.request, io, 'request file'), `request '${values.request}'`);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new UsageError('the --request file must hold a JSON object', 'ask');
    const withModel = body as Record<string, unknown>;
    if (chosen !== undefined) withModel.model = chosen;
    return { body: withModel, json: values.json ?? false, explain: values.explain ?? false, exact: !values['no-exact'], config, ...(backend ? { backend } : {}) };
  }

  if (positionals.length > 1) {
    throw new UsageError(`expected one state argument, got ${positionals.length} (quote the state, or use --file)`, 'ask');
  }
  if (positionals.length === 1 && values.file !== undefined) throw new UsageError('give the state either as an argument or with --file, not both', 'ask');
  let text: string;
  if (positionals.length === 1) text = positionals[0]!;
  else if (values.file !== undefined) text = await readSource(values.file, io, 'state file');
  else if (!io.stdin.isTTY) text = await readAll(io.stdin);
  else throw new UsageError('no state: pass it as an argument, with --file <path>, or on standard input', 'ask');
  if (flags.length === 0) throw new UsageError('no questions: ask at least one with --noul, --choice or --score', 'ask');

  const state: State = values['json-state'] ? (parseJson(text, 'the state') as State) : text;
  return { body: { state, model, questions: buildQuestions(flags) }, json: values.json ?? false, explain: values.explain ?? false, exact: !values['no-exact'], config, ...(backend ? { backend } : {}) };
}

/** Runs `evalmodel ask`; resolves to the exit status. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  const { body, json, explain, exact, backend, config: modelConfig } = await buildRequest(argv, io);

  // Checked against the registry before the weights load, so a typo fails at once.
  const { registryFor } = await import('../../engine/registry-config.js');
  let known = false;
  try {
    const registry = registryFor(modelConfig);
    if (typeof body.model === 'string') {
      registry.resolve(body.model);
      known = true;
    }
  } catch (error) {
    if (error instanceof UnknownModelError) throw new CliError(error.message, EXIT.usage);
    throw new CliError(`cannot use the model registry: ${(error as Error).message}`, EXIT.usage);
  }

  const progress = startProgress(io.stderr, `Loading ${typeof body.model === 'string' ? body.model : 'the model'}…`);
  const started = performance.now();
  let response: SystemOneResponse;
  let backendName: string;
  try {
    const { createEngine } = await import('../../engine/engine.js');
    // The requested model is the engine's default, so that an NLI model loads (or fails) here.
    const config: EngineConfig = { ...modelConfig, ...(backend ? { backend } : {}), ...(known ? { defaultModel: body.model as string } : {}), exact };
    let engine;
    try {
      engine = await createEngine(config);
    } catch (error) {
      throw new CliError(`the model failed to load: ${(error as Error).message}`, EXIT.runtime);
    }
    progress.update('Evaluating…');
    try {
      response = await engine.evaluate(body);
      backendName = backendLine(engine.stats());
    } finally {
      await engine.close();
    }
  } catch (error) {
    if (error instanceof RequestValidationError) {
      if (json) io.stdout.write(`${JSON.stringify(error.toJSON(), null, 2)}\n`);
      throw new CliError(
        `the request failed validation (422), ${error.detail.length} problem${error.detail.length === 1 ? '' : 's'}:`,
        EXIT.usage,
        error.detail.map((d) => `  ${d.loc.join('.')}: ${d.msg} [${d.type}]`),
      );
    }
    if (error instanceof UnknownModelError) throw new CliError(error.message, EXIT.usage);
    throw error;
  } finally {
    progress.stop();
  }

  if (json) io.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
  else {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    io.stdout.write(renderResponse(response, ` · backend ${backendName} · ${seconds} s`));
  }
  if (explain) {
    // The request passed validation above, so its state and questions have their shapes.
    const explanations = explainRequest(body.state as State, body.questions as Record<string, Question>);
    if (json) io.stderr.write(`${JSON.stringify({ exact: explanations })}\n`);
    else io.stdout.write(renderExplanations(explanations) + (exact ? '' : '(the stage is off: --no-exact; every answer above is the model\'s)\n'));
  }
  return EXIT.ok;
}
