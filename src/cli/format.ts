/**
 * Terminal rendering of answers: one block per question, each outcome on its own line with a
 * bar whose length is its probability, labels and bars aligned across the whole response.
 * @module
 */
import type { Answer, Content, SystemOneResponse } from '../types.js';
import type { EngineStats } from '../engine/contract.js';

/** Width of a full bar (probability 1), in character cells. */
export const BAR_WIDTH = 30;
/** Labels longer than this are cut with an ellipsis so that bars stay aligned on a terminal. */
export const MAX_LABEL = 36;

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `width` cells for a value in [0, 1], drawn in eighths of a cell and padded with spaces. */
export function bar(value: number, width: number = BAR_WIDTH): string {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  const eighths = Math.round(v * width * 8);
  const full = Math.floor(eighths / 8);
  const drawn = '█'.repeat(full) + EIGHTHS[eighths % 8]!;
  return drawn + ' '.repeat(width - [...drawn].length);
}

/** One line of text for a criterion or legend entry, whatever its JSON shape. */
export function contentLabel(content: Content | null | undefined): string {
  if (content === null || content === undefined) return '';
  return typeof content === 'string' ? content.replace(/\s+/g, ' ').trim() : JSON.stringify(content);
}

function cut(text: string, max: number = MAX_LABEL): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
}

/** A probability as the CLI prints it: four decimals. */
export function fixed(p: number): string {
  return p.toFixed(4);
}

interface Row {
  label: string;
  p: number;
  top: boolean;
}

interface Block {
  heading: string;
  rows: Row[];
}

function blockOf(id: string, answer: Answer): Block {
  switch (answer.type) {
    case 'noul':
      return {
        heading: `${id}  [noul]  p(yes) ${fixed(answer.noul)}`,
        rows: [
          { label: 'yes', p: answer.noul, top: answer.noul >= 0.5 },
          { label: 'no', p: 1 - answer.noul, top: answer.noul < 0.5 },
        ],
      };
    case 'choice':
      return {
        heading: `${id}  [choice]  ${answer.choice}  confidence ${fixed(answer.confidence)}`,
        rows: Object.entries(answer.probabilities).map(([option, p]) => ({ label: option, p, top: option === answer.choice })),
      };
    case 'score': {
      const levels = Object.keys(answer.probabilities);
      const top = levels.reduce((best, k) => (answer.probabilities[k]! > answer.probabilities[best]! ? k : best), levels[0] ?? '0');
      return {
        heading: `${id}  [score]  ${answer.score.toFixed(2)} on 0-${Math.max(0, levels.length - 1)}  confidence ${fixed(answer.confidence)}`,
        rows: levels.map((k) => ({ label: `${k} ${contentLabel(answer.legend[k])}`, p: answer.probabilities[k]!, top: k === top })),
      };
    }
  }
}

/**
 * Renders a response as aligned probability bars, one block per question in the response's
 * order, and a footer with the model and token usage. `footerExtra` is appended to the footer.
 */
export function renderResponse(response: SystemOneResponse, footerExtra = ''): string {
  const blocks = Object.entries(response.answers).map(([id, a]) => blockOf(id, a));
  const labelWidth = Math.max(0, ...blocks.flatMap((b) => b.rows.map((r) => [...cut(r.label)].length)));
  const lines: string[] = [];
  for (const block of blocks) {
    lines.push(block.heading);
    for (const row of block.rows) {
      lines.push(`  ${padEnd(cut(row.label), labelWidth)}  ${bar(row.p)}  ${fixed(row.p)}${row.top ? '  ◀' : ''}`);
    }
    lines.push('');
  }
  const usage = response.usage;
  lines.push(`model ${response.model} · ${usage.input_tokens} input tokens · ${usage.output_tokens} output tokens${footerExtra}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The backend an engine runs on, and why each one before it in the registry's order did not
 * start: "onnxruntime-node", or "wasm (onnxruntime-node passed over: <reason>)"; then, once a
 * request has used a model with trained heads or a reader, what ran them: "· heads
 * onnxruntime-node · reader onnxruntime-node", or "· heads tfjs (onnxruntime-node passed over:
 * <reason>)" where the encoder ran natively and they did not (on wasm they run on tfjs by
 * design, so no reason is given).
 */
export function backendLine(stats: Pick<EngineStats, 'backend' | 'backends'> & Partial<Pick<EngineStats, 'reader' | 'heads'>>): string {
  const winner = stats.backends.findIndex((b) => b.name === stats.backend && b.error === undefined);
  // Only those before it in the order: a tfjs backend tried later for the heads is not a fallback.
  const skipped = stats.backends.slice(0, winner < 0 ? stats.backends.length : winner).filter((b) => b.error !== undefined);
  const encoder = skipped.length === 0 ? stats.backend : `${stats.backend} (${skipped.map((b) => `${b.name} passed over: ${b.error}`).join('; ')})`;
  const part = (label: string, report: EngineStats['reader'] | undefined) => {
    if (!report) return '';
    const fellBack = stats.backend === 'onnxruntime-node' ? report.tried.filter((t) => t.error !== undefined) : [];
    const why = fellBack.length === 0 ? '' : ` (${fellBack.map((t) => `${t.name} passed over: ${t.error}`).join('; ')})`;
    return ` · ${label} ${report.backend}${why}`;
  };
  return `${encoder}${part('heads', stats.heads)}${part('reader', stats.reader)}`;
}
