/**
 * Statistics, tables and the before/after comparison of the speed benchmark.
 * @module
 */
import { readFileSync } from 'node:fs';

/** One measured case. Times in milliseconds. */
export interface CaseResult {
  /** Stable identifier, the key of `--compare`. */
  id: string;
  group: string;
  label: string;
  iterations: number;
  medianMs: number;
  p90Ms: number;
  minMs: number;
  /** CPU time of one request (median): robust to other processes sharing the cores. */
  cpuMs?: number;
  /** Tokens of the request as `usage.input_tokens` counts them. */
  inputTokens: number;
  /** Tokens the encoder ran over for one request (median; 0 when everything was cached). */
  encodedTokens: number;
  /** Floating-point operations of one request (median), from the encoder's counters. */
  flops: number;
  /** flops / median time (wall clock). */
  gflops: number;
  notes?: string;
}

/** One check of the targets. */
export interface TargetResult {
  target: string;
  measured: string;
  met: boolean;
}

export interface BenchReport {
  meta: {
    date: string;
    node: string;
    cpu: string;
    cores: number;
    backend: string;
    /** Versioned model id the requests ran on. */
    model?: string;
    /** Best-case kernel rate on this backend and one core, GFLOP/s, and how it was measured. */
    peakGflops: number;
    peakKernel: string;
    peakRssMiB: number;
    quick: boolean;
    gitHead?: string;
  };
  results: CaseResult[];
  throughput: ThroughputResult[];
  targets: TargetResult[];
}

export interface ThroughputResult {
  id: string;
  label: string;
  requests: number;
  concurrency: number;
  totalMs: number;
  requestsPerSecond: number;
  p50Ms: number;
  /** Longest stall of the calling thread's event loop during the run. */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
  /** Cores this process kept busy during the run (CPU time / wall time, all its threads). */
  ownCores?: number;
  /** Cores other processes of the machine kept busy meanwhile: a shared machine's share. */
  otherCores?: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function median(values: readonly number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return '-';
  return n.toFixed(digits);
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [pad(header, widths), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => pad(r, widths))].join('\n');
}

export function formatReport(report: BenchReport): string {
  const m = report.meta;
  const lines = [
    `evalmodel bench:speed  ${m.date}  node ${m.node}  ${m.cpu} x${m.cores}  backend ${m.backend}  model ${m.model ?? '?'}${m.quick ? '  (quick)' : ''}`,
    `peak: ${fmt(m.peakGflops)} GFLOP/s (${m.peakKernel}); peak RSS ${fmt(m.peakRssMiB, 0)} MiB`,
    '',
    table(
      ['group', 'case', 'median ms', 'p90 ms', 'min ms', 'cpu ms', 'in tok', 'enc tok', 'GFLOP/req', 'GFLOP/s', '% peak'],
      report.results.map((r) => [
        r.group,
        r.label,
        fmt(r.medianMs, 2),
        fmt(r.p90Ms, 2),
        fmt(r.minMs, 2),
        fmt(r.cpuMs ?? NaN, 2),
        String(r.inputTokens),
        String(r.encodedTokens),
        fmt(r.flops / 1e9, 3),
        fmt(r.gflops, 1),
        r.flops > 0 ? fmt((100 * r.gflops) / m.peakGflops, 0) : '-',
      ]),
    ),
  ];
  if (report.throughput.length > 0) {
    lines.push(
      '',
      table(
        ['throughput', 'engine', 'requests', 'conc', 'total ms', 'req/s', 'p50 ms', 'loop max ms', 'loop p99 ms', 'cores', 'others'],
        report.throughput.map((t) => [
          t.id,
          t.label,
          String(t.requests),
          String(t.concurrency),
          fmt(t.totalMs, 0),
          fmt(t.requestsPerSecond, 2),
          fmt(t.p50Ms, 1),
          fmt(t.loopDelayMaxMs, 1),
          fmt(t.loopDelayP99Ms, 1),
          fmt(t.ownCores ?? NaN, 2),
          fmt(t.otherCores ?? NaN, 2),
        ]),
      ),
    );
  }
  if (report.targets.length > 0) {
    lines.push('', table(['target', 'measured', 'met'], report.targets.map((t) => [t.target, t.measured, t.met ? 'yes' : 'NO'])));
  }
  return lines.join('\n');
}

/** Prints the before/after table of two JSON reports, matched by case id. */
export function compareReports(beforeFile: string, afterFile: string): string {
  const before = JSON.parse(readFileSync(beforeFile, 'utf8')) as BenchReport;
  const after = JSON.parse(readFileSync(afterFile, 'utf8')) as BenchReport;
  const rows: string[][] = [];
  const byId = new Map(before.results.map((r) => [r.id, r]));
  for (const a of after.results) {
    const b = byId.get(a.id);
    if (!b) continue;
    const cpu = b.cpuMs && a.cpuMs ? `${fmt(b.cpuMs, 1)} -> ${fmt(a.cpuMs, 1)} (${fmt(b.cpuMs / a.cpuMs, 2)}x)` : '-';
    rows.push([a.group, a.label, fmt(b.medianMs, 2), fmt(a.medianMs, 2), `${fmt(b.medianMs / a.medianMs, 2)}x`, cpu, fmt(b.gflops, 1), fmt(a.gflops, 1)]);
  }
  const tput = new Map(before.throughput.map((t) => [t.id, t]));
  for (const a of after.throughput) {
    const b = tput.get(a.id);
    if (!b) continue;
    rows.push(['throughput', `${a.id} (req/s)`, fmt(b.requestsPerSecond, 2), fmt(a.requestsPerSecond, 2), `${fmt(a.requestsPerSecond / b.requestsPerSecond, 2)}x`, '-', '-', '-']);
  }
  return [
    `before: ${beforeFile} (${before.meta.date}, ${before.meta.backend})`,
    `after:  ${afterFile} (${after.meta.date}, ${after.meta.backend})`,
    `peak RSS MiB: ${fmt(before.meta.peakRssMiB, 0)} -> ${fmt(after.meta.peakRssMiB, 0)}`,
    '',
    table(['group', 'case', 'before ms', 'after ms', 'speedup', 'cpu ms before -> after', 'GFLOP/s before', 'GFLOP/s after'], rows),
  ].join('\n');
}
