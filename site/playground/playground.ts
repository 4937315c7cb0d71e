/**
 * The documentation site's playground: the engine itself (src/platform/browser.ts, the same
 * pipeline as in Node) running in the page on tfjs, with the model's files served by the site.
 * Type a state and questions, see each answer's probabilities as bars.
 */
import { createBrowserEngine, RequestValidationError, type Engine } from '../../src/platform/browser.js';
import type { Answer, Question, Questions, State, SystemOneResponse } from '../../src/types.js';
import { choiceCriteria, noulCriteria, scoreCriteria } from './criteria.js';

const SAMPLE_STATE = `Hi, I ordered the Aurora desk lamp (order #48213) three weeks ago and it arrived
yesterday with a cracked base. This is the second time this happens. I want a full refund,
not a replacement, and honestly I am thinking about taking my business elsewhere.`;

interface Row {
  type: Question['type'];
  instructions: string;
  criteria: string;
}

const SAMPLE_QUESTIONS: Row[] = [
  { type: 'noul', instructions: 'Does the customer ask for a refund?', criteria: '' },
  {
    type: 'choice',
    instructions: 'Which team should handle this ticket?',
    criteria: 'shipping: delivery delays and damaged parcels\nbilling: payments, invoices and refunds\ntechnical: product setup and malfunctions',
  },
  { type: 'score', instructions: 'How upset is the customer?', criteria: 'calm, mildly annoyed, clearly upset, furious' },
];

/** One entry per line, or comma-separated on one line (see criteria.ts). */
const PLACEHOLDER: Record<Question['type'], string> = {
  noul: 'optional: true: what counts as yes, false: what counts as no',
  choice: 'options: shipping, billing; or one a line, name: description',
  score: 'levels from lowest to highest: calm, annoyed, furious',
};

function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`playground: missing #${id}`);
  return el;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const status = $('status');
const stateInput = $('state') as HTMLTextAreaElement;
const stateJson = $('state-json') as HTMLInputElement;
const questionList = $('questions');
const modelSelect = $('model') as HTMLSelectElement;
const evaluateButton = $('evaluate') as HTMLButtonElement;
const results = $('results');
const requestOut = $('request-json');
const responseOut = $('response-json');

function setStatus(state: 'loading' | 'ready' | 'busy' | 'error', text: string): void {
  status.dataset.state = state;
  status.textContent = text;
}

/** Adds one question row to the editor. */
function addRow(row: Row): void {
  const item = el('li', { class: 'pg-question' });
  const type = el('select', { 'aria-label': 'Question type', class: 'pg-type' });
  for (const t of ['noul', 'choice', 'score'] as const) {
    const option = el('option', { value: t }, t);
    if (t === row.type) option.selected = true;
    type.append(option);
  }
  const instructions = el('input', { type: 'text', class: 'pg-instructions', 'aria-label': 'Question', placeholder: 'The question or statement' });
  instructions.value = row.instructions;
  // A text area, so that entries with commas in their descriptions can go one a line.
  const criteria = el('textarea', { class: 'pg-criteria', rows: String(Math.max(1, row.criteria.split('\n').length)), 'aria-label': 'Criteria: options, levels, or what counts as yes and no' });
  criteria.value = row.criteria;
  const remove = el('button', { type: 'button', class: 'pg-remove', 'aria-label': 'Remove this question', title: 'Remove' }, '×');
  const sync = (): void => {
    criteria.placeholder = PLACEHOLDER[type.value as Question['type']];
  };
  type.addEventListener('change', sync);
  remove.addEventListener('click', () => item.remove());
  sync();
  item.append(type, instructions, criteria, remove);
  questionList.append(item);
}

/** The request body the editor describes. Question ids are the question texts. */
function buildRequest(): { state: State; model: string; questions: Questions } {
  const questions: Questions = {};
  for (const item of Array.from(questionList.querySelectorAll<HTMLLIElement>('.pg-question'))) {
    const type = (item.querySelector('.pg-type') as HTMLSelectElement).value as Question['type'];
    const instructions = (item.querySelector('.pg-instructions') as HTMLInputElement).value.trim();
    const field = (item.querySelector('.pg-criteria') as HTMLTextAreaElement).value;
    let question: Question;
    if (type === 'noul') {
      const criteria = noulCriteria(field);
      question = criteria ? { type, instructions, criteria } : { type, instructions };
    } else if (type === 'choice') question = { type, instructions, criteria: choiceCriteria(field) };
    else question = { type, instructions, criteria: scoreCriteria(field) };
    let id = instructions || `question ${Object.keys(questions).length + 1}`;
    for (let n = 2; Object.hasOwn(questions, id); n++) id = `${instructions} (${n})`;
    questions[id] = question;
  }
  const state: State = stateJson.checked ? (JSON.parse(stateInput.value) as State) : stateInput.value;
  return { state, model: modelSelect.value, questions };
}

function bars(rows: { label: string; p: number; top: boolean }[]): HTMLElement {
  const table = el('div', { class: 'pg-bars' });
  for (const r of rows) {
    const line = el('div', { class: r.top ? 'pg-bar is-top' : 'pg-bar' });
    const track = el('span', { class: 'pg-track' });
    const fill = el('span', { class: 'pg-fill' });
    fill.style.width = `${(Math.min(1, Math.max(0, r.p)) * 100).toFixed(2)}%`;
    track.append(fill);
    line.append(el('span', { class: 'pg-label', title: r.label }, r.label), track, el('span', { class: 'pg-value' }, r.p.toFixed(4)));
    table.append(line);
  }
  return table;
}

function label(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function answerCard(id: string, answer: Answer): HTMLElement {
  const card = el('article', { class: `pg-answer pg-${answer.type}` });
  card.append(el('h3', {}, id));
  if (answer.type === 'noul') {
    card.append(el('p', { class: 'pg-meta' }, `noul · p(yes) ${answer.noul.toFixed(4)} · no confidence field`));
    card.append(bars([
      { label: 'yes', p: answer.noul, top: answer.noul >= 0.5 },
      { label: 'no', p: 1 - answer.noul, top: answer.noul < 0.5 },
    ]));
  } else if (answer.type === 'choice') {
    card.append(el('p', { class: 'pg-meta' }, `choice · ${answer.choice} · confidence ${answer.confidence.toFixed(4)}`));
    card.append(bars(Object.entries(answer.probabilities).map(([k, p]) => ({ label: k, p, top: k === answer.choice }))));
  } else {
    const keys = Object.keys(answer.probabilities);
    const top = keys.reduce((b, k) => (answer.probabilities[k]! > answer.probabilities[b]! ? k : b), keys[0] ?? '0');
    card.append(el('p', { class: 'pg-meta' }, `score · ${answer.score.toFixed(2)} on 0–${keys.length - 1} · confidence ${answer.confidence.toFixed(4)}`));
    card.append(bars(keys.map((k) => ({ label: `${k} ${label(answer.legend[k])}`, p: answer.probabilities[k]!, top: k === top }))));
  }
  return card;
}

function showResponse(response: SystemOneResponse, ms: number): void {
  results.replaceChildren(...Object.entries(response.answers).map(([id, a]) => answerCard(id, a)));
  results.append(el('p', { class: 'pg-usage' }, `${response.model} · ${response.usage.input_tokens} input tokens · ${ms.toFixed(0)} ms in this page`));
  responseOut.textContent = JSON.stringify(response, null, 2);
}

function showError(error: unknown): void {
  const box = el('div', { class: 'pg-error', role: 'alert' });
  if (error instanceof RequestValidationError) {
    box.append(el('strong', {}, 'The request failed validation (422):'));
    const ul = el('ul');
    for (const d of error.detail) ul.append(el('li', {}, `${d.loc.join('.')}: ${d.msg} [${d.type}]`));
    box.append(ul);
    responseOut.textContent = JSON.stringify(error.toJSON(), null, 2);
  } else {
    box.textContent = error instanceof Error ? error.message : String(error);
    responseOut.textContent = '';
  }
  results.replaceChildren(box);
}

async function evaluate(engine: Engine): Promise<void> {
  let request;
  try {
    request = buildRequest();
  } catch (error) {
    showError(new Error(`The state is not valid JSON: ${(error as Error).message}`));
    return;
  }
  requestOut.textContent = JSON.stringify(request, null, 2);
  evaluateButton.disabled = true;
  setStatus('busy', 'Evaluating…');
  const started = performance.now();
  try {
    showResponse(await engine.evaluate(request), performance.now() - started);
  } catch (error) {
    showError(error);
  } finally {
    evaluateButton.disabled = false;
    setStatus('ready', readyText(engine));
  }
}

/** The status once the model is loaded: backend, and what runs the matrix products. */
function readyText(engine: { stats(): { backend: string; matmul: string } }): string {
  const { backend, matmul } = engine.stats();
  return `Ready · backend ${backend} · products ${matmul}`;
}

async function main(): Promise<void> {
  stateInput.value = SAMPLE_STATE;
  for (const q of SAMPLE_QUESTIONS) addRow(q);
  $('add-question').addEventListener('click', () => addRow({ type: 'noul', instructions: '', criteria: '' }));
  setStatus('loading', 'Loading the model…');
  const engine = await createBrowserEngine({
    baseUrl: 'playground/model/',
    onProgress: (step) => setStatus('loading', `${step}…`),
  });
  for (const m of engine.listModels().models) modelSelect.append(el('option', { value: m.name }, `${m.name} (${engine.resolveModel(m.name)})`));
  $('playground-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void evaluate(engine);
  });
  evaluateButton.disabled = false;
  setStatus('ready', readyText(engine));
}

main().catch((error: unknown) => {
  setStatus('error', `The model failed to load: ${error instanceof Error ? error.message : String(error)}`);
  console.error(error);
});
