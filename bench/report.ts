/**
 * The figures of `npm run bench` (bench/run.ts): one row per measured scenario or ceiling run, its
 * share of the ceiling, the targets, and the table printed at the end.
 */
import type autocannon from 'autocannon';
import { type Scenario } from './protocol.js';

/** The two ceiling routes: the default page's bytes, and an empty 304. */
export type CeilingKind = 'ceiling 200' | 'ceiling 304';

export interface Row {
  size: number;
  scenario: Scenario | CeilingKind;
  /** Whether the server ran with its response cache (the ceiling has none). */
  cache: 'off' | 'on' | '–';
  urls: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Responses by status code, e.g. `{ 200: 1200, 304: 30 }`. */
  statuses: Record<string, number>;
  /** Measured on the baseline server (`--baseline`, `--compare-series`). */
  baseline?: boolean;
  /** What the baseline is, in its rows' names: `baseline`, or `without series`. */
  baselineLabel?: string;
  /** This checkout's requests/s over the baseline's, measured right after it. */
  vsBaseline?: number;
  /** The server's CPU time (every thread) per request, in µs, where /proc tells it. */
  cpuUsPerRequest?: number | undefined;
  /** This checkout's CPU time per request over the baseline's. */
  cpuVsBaseline?: number;
  /** Server figures; absent for the ceiling. */
  peakRssMiB?: number;
  /** The V8 heap's reserved size when RSS peaked. */
  heapAtPeakMiB?: number;
  /** Longest event-loop stall in the server, and its share of time in garbage collection. */
  stallMs?: number;
  gcShare?: number;
}

export function loadFigures(result: autocannon.Result): Pick<Row, 'rps' | 'p50' | 'p99' | 'non2xx' | 'errors' | 'statuses'> {
  const statuses: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stats.count ?? 0;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
  };
}

/** The ceiling a scenario is compared with: the empty 304 for `revalidate`, the page otherwise. */
export function ceilingOf(scenario: Row['scenario']): CeilingKind {
  return scenario === 'revalidate' ? 'ceiling 304' : 'ceiling 200';
}

/** The mean of a size's ceiling runs of one kind (req/s, p50, p99), or undefined before the first. */
export function ceilingMean(rows: readonly Row[], size: number, kind: CeilingKind): Row | undefined {
  const runs = rows.filter((r) => r.size === size && r.scenario === kind);
  if (runs.length === 0) return undefined;
  const mean = (pick: (r: Row) => number): number => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  return {
    ...runs[0]!,
    rps: mean((r) => r.rps),
    p50: mean((r) => r.p50),
    p99: mean((r) => r.p99),
    cpuUsPerRequest: runs.every((r) => r.cpuUsPerRequest !== undefined) ? mean((r) => r.cpuUsPerRequest!) : undefined,
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    statuses,
  };
}

/** The row's requests/s as a share of its ceiling's mean so far. */
export function ratioOf(row: Row, rows: readonly Row[]): number | undefined {
  if (row.scenario.startsWith('ceiling')) return undefined;
  const ceiling = ceilingMean(rows, row.size, ceilingOf(row.scenario));
  return ceiling === undefined ? undefined : row.rps / ceiling.rps;
}

/**
 * The targets: `hot` ≥ 50% of the page ceiling with p99 ≤ 20 ms; `revalidate` ≥ 50% of the 304
 * ceiling, every answer a 304; at 100,000 events, the cold `default` ≥ 15% of the page ceiling and
 * every other cold scenario ≥ 10%, p99 ≤ 40 ms. Other sizes have no cold target ('').
 */
export function verdict(row: Row, rows: readonly Row[]): string {
  const ratio = ratioOf(row, rows);
  if (ratio === undefined || row.baseline === true) return '';
  const mark = (ok: boolean, rule: string): string => `${ok ? 'PASS' : 'MISS'} (${rule})`;
  if (row.scenario === 'hot') return mark(ratio >= 0.5 && row.p99 <= 20, '≥ 50%, p99 ≤ 20 ms');
  if (row.scenario === 'revalidate') {
    const all304 = (row.statuses['304'] ?? 0) > 0 && Object.keys(row.statuses).every((code) => code === '304');
    return mark(ratio >= 0.5 && all304, all304 ? '≥ 50% of 304' : '≥ 50% of 304; not all 304');
  }
  if (row.size !== 100_000) return '';
  const share = row.scenario === 'default' ? 0.15 : 0.1;
  return mark(ratio >= share && row.p99 <= 40, `≥ ${share * 100}%, p99 ≤ 40 ms`);
}

/** A row's scenario, and the baseline it was measured on when it was. */
const rowName = (row: Row): string => (row.baseline === true ? `${row.scenario} (${row.baselineLabel ?? 'baseline'})` : row.scenario);

/** The target of a list with series: within 20% of the same list without them (req/s). */
export const SERIES_RATIO_TARGET = 0.8;

/** One line per cold scenario: req/s with series over req/s without, and whether it meets the target. */
export function seriesRatioLines(rows: readonly Row[]): string[] {
  return rows
    .filter((r) => r.baseline !== true && r.vsBaseline !== undefined)
    .map(
      (r) =>
        `  ${r.size.toLocaleString('en')} ${r.scenario.padEnd(9)} ${r.vsBaseline!.toFixed(2)}× req/s` +
        `${r.cpuVsBaseline === undefined ? '' : `, ${r.cpuVsBaseline.toFixed(2)}× CPU per request`}` +
        `  ${r.vsBaseline! >= SERIES_RATIO_TARGET ? 'PASS' : 'MISS'} (≥ ${SERIES_RATIO_TARGET.toFixed(2)}×)`,
    );
}

export const statusText = (statuses: Record<string, number>): string =>
  Object.entries(statuses)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');

/** One line as a scenario finishes (its ratio against the ceiling runs so far). */
export function progressLine(row: Row, rows: readonly Row[]): string {
  const ratio = ratioOf(row, rows);
  const cpu = row.cpuUsPerRequest === undefined ? '' : `  CPU ${row.cpuUsPerRequest.toFixed(0)} µs/req`;
  const server =
    row.peakRssMiB === undefined
      ? ''
      : `${cpu}  RSS ${row.peakRssMiB} MiB (heap ${row.heapAtPeakMiB})  longest stall ${row.stallMs} ms  GC ${((row.gcShare ?? 0) * 100).toFixed(0)}%`;
  return (
    `  ${rowName(row).padEnd(11)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  [${statusText(row.statuses)}]` +
    `${ratio === undefined ? '' : `  ${(ratio * 100).toFixed(1)}% of ceiling`}${server}`
  );
}

/** The final table: per size, the ceilings (mean of their runs), then every scenario with its ratio and target. */
export function table(rows: readonly Row[]): string {
  const header = [
    'events',
    'scenario',
    'cache',
    'URLs',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'statuses',
    'of ceiling',
    'target',
    'vs baseline',
    'CPU µs/req',
    'CPU vs baseline',
    'peak RSS MiB',
    'heap at peak',
    'longest stall ms',
    'GC',
  ];
  const sizes = [...new Set(rows.map((r) => r.size))];
  const shown = sizes.flatMap((size) => {
    const ceilings = (['ceiling 200', 'ceiling 304'] as const).flatMap((kind) => ceilingMean(rows, size, kind) ?? []);
    return [...ceilings, ...rows.filter((r) => r.size === size && !r.scenario.startsWith('ceiling'))];
  });
  const cells = shown.map((r) => {
    const ratio = ratioOf(r, rows);
    return [
      r.size.toLocaleString('en'),
      rowName(r),
      r.cache,
      String(r.urls),
      r.rps.toFixed(0),
      String(Math.round(r.p50)),
      String(Math.round(r.p99)),
      String(r.non2xx),
      statusText(r.statuses),
      ratio === undefined ? '' : `${(ratio * 100).toFixed(1)}%`,
      verdict(r, rows),
      r.vsBaseline === undefined ? '' : `${r.vsBaseline.toFixed(2)}×`,
      r.cpuUsPerRequest === undefined ? '' : r.cpuUsPerRequest.toFixed(0),
      r.cpuVsBaseline === undefined ? '' : `${r.cpuVsBaseline.toFixed(2)}×`,
      r.peakRssMiB === undefined ? '' : String(r.peakRssMiB),
      r.heapAtPeakMiB === undefined ? '' : String(r.heapAtPeakMiB),
      r.stallMs === undefined ? '' : String(r.stallMs),
      r.gcShare === undefined ? '' : `${(r.gcShare * 100).toFixed(0)}%`,
    ];
  });
  const left = new Set([1, 2, 8, 10]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]): string => `| ${row.map((cell, i) => (left.has(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (left.has(i) ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.map(line)].join(
    '\n',
  );
}
