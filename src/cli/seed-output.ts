/**
 * What the seed CLI prints: problems and notes on stderr, a progress bar on a terminal (plain
 * progress lines otherwise), and the summary table on stdout.
 */
import { formatProblem, type PruneList, type ResourceCounts, type SeedPhase, type SeedReport, type SeedReporter } from '../import/report.js';
import { RESOURCES, type Resource } from '../import/schemas.js';

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const PLAIN_MIN_TOTAL = 1000;
const number = (n: number): string => n.toLocaleString('en-US');

/**
 * A reporter writing to `err`. On a terminal the progress is one line redrawn at most every 100 ms;
 * otherwise a line each 10 % (or each 5 s when the total is unknown).
 */
export function createConsoleReporter(
  err: OutputStream,
  { clock = () => performance.now() }: { clock?: () => number } = {},
): SeedReporter & { finish(): void } {
  const tty = err.isTTY === true;
  let phase: SeedPhase | null = null;
  let phaseStart = 0;
  let lastDraw = -Infinity;
  let lastStep = -1;
  let barShown = false;
  let printed = false;
  let latest: { done: number; total: number | null } = { done: 0, total: null };

  const clearBar = (): void => {
    if (barShown) err.write('\r\x1b[2K');
    barShown = false;
  };
  const rate = (done: number): string => {
    const seconds = (clock() - phaseStart) / 1000;
    return seconds > 0.2 ? ` ${number(Math.round(done / seconds))}/s` : '';
  };
  const draw = (done: number, total: number | null): void => {
    if (phase === null) return;
    let line: string;
    if (total !== null && total > 0) {
      const width = Math.max(10, Math.min(40, (err.columns ?? 80) - 50));
      const filled = Math.round((done / total) * width);
      line = `${phase.padEnd(10)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor((done / total) * 100)).padStart(3)}% ${number(done)}/${number(total)}${rate(done)}`;
    } else line = `${phase.padEnd(10)} ${number(done)} records${rate(done)}`;
    err.write(`\r\x1b[2K${line}`);
    barShown = true;
  };
  const endPhase = (): void => {
    if (phase === null) return;
    if (tty) {
      draw(latest.done, latest.total);
      err.write('\n');
      barShown = false;
    } else if (printed) err.write(`${phase}: ${number(latest.done)}${latest.total !== null ? `/${number(latest.total)}` : ''} records done\n`);
  };

  return {
    problem(problem) {
      clearBar();
      err.write(`${formatProblem(problem)}\n`);
    },
    info(message) {
      clearBar();
      err.write(`${message}\n`);
    },
    progress(next, done, total) {
      if (next !== phase) {
        endPhase();
        phase = next;
        phaseStart = clock();
        lastDraw = -Infinity;
        lastStep = -1;
        printed = false;
      }
      latest = { done, total };
      const now = clock();
      if (tty) {
        if (now - lastDraw >= 100 || done === total) {
          lastDraw = now;
          draw(done, total);
        }
        return;
      }
      // Small loads finish before a line would help; large ones get a line each 10 % (or 5 s).
      if (total !== null && total >= PLAIN_MIN_TOTAL) {
        const step = Math.floor((done / total) * 10);
        if (step > lastStep && step > 0) {
          lastStep = step;
          printed = true;
          err.write(`${next}: ${number(done)}/${number(total)} (${step * 10}%)${rate(done)}\n`);
        }
      } else if (now - lastDraw >= 5000) {
        if (lastDraw !== -Infinity) {
          printed = true;
          err.write(`${next}: ${number(done)} records${rate(done)}\n`);
        }
        lastDraw = now;
      }
    },
    finish() {
      endPhase();
      phase = null;
    },
  };
}

function pruneLines(prune: Partial<Record<Resource, PruneList>>, removing: boolean, dryRun: boolean): string[] {
  const lines: string[] = [];
  for (const resource of RESOURCES) {
    const list = prune[resource];
    if (!list || list.count === 0) continue;
    const verb = removing && !dryRun ? 'removed' : 'to remove';
    const more = list.count > list.slugs.length ? `, … and ${number(list.count - list.slugs.length)} more` : '';
    lines.push(`  ${resource} ${verb} (${number(list.count)}): ${list.slugs.join(', ')}${more}`);
  }
  return lines;
}

/** The summary: a table per resource, then what it means. */
export function formatSummary(report: SeedReport, { prune = false, yes = false }: { prune?: boolean; yes?: boolean } = {}): string {
  const lines: string[] = [];
  if (report.outcome === 'invalid') {
    lines.push(`${number(report.invalidRecords)} invalid record${report.invalidRecords === 1 ? '' : 's'}; nothing was written.`);
    return `${lines.join('\n')}\n`;
  }
  const columns: Array<keyof ResourceCounts> = ['created', 'updated', 'unchanged', 'failed', ...(prune ? (['removed'] as const) : [])];
  const header = ['', ...columns];
  const rows: string[][] = [header.map(String)];
  const totals: ResourceCounts = { created: 0, updated: 0, unchanged: 0, failed: 0, removed: 0 };
  for (const resource of RESOURCES) {
    const counts = report.counts[resource];
    rows.push([resource, ...columns.map((c) => number(counts[c]))]);
    for (const c of Object.keys(totals) as Array<keyof ResourceCounts>) totals[c] += counts[c];
  }
  rows.push(['total', ...columns.map((c) => number(totals[c]))]);
  const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  if (report.dryRun) lines.push('Dry run: nothing was written; the counts say what a run would do.');
  for (const row of rows) lines.push(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart((widths[i] ?? 0) + 2))).join(''));
  const seconds = report.durationMs / 1000;
  lines.push(`${number(report.records)} records in ${seconds.toFixed(2)} s (${number(Math.round(report.records / Math.max(seconds, 0.001)))} records/s).`);
  if (report.prune) {
    const pending = pruneLines(report.prune, yes, report.dryRun);
    if (pending.length === 0) lines.push('Prune: every stored record is in the files; nothing to remove.');
    else {
      lines.push(
        report.outcome === 'prune-unconfirmed'
          ? 'Prune: these records are not in the files and would be removed; run again with --yes to remove them:'
          : report.dryRun
            ? 'Prune (dry run): would remove:'
            : 'Prune:',
      );
      lines.push(...pending);
    }
  }
  if (report.pruneSkipped) lines.push(`Prune skipped: ${report.pruneSkipped}.`);
  const changed = totals.created + totals.updated + totals.removed;
  if (totals.failed > 0) lines.push(`${number(totals.failed)} record${totals.failed === 1 ? '' : 's'} failed (see above).`);
  else if (changed === 0 && !report.dryRun) lines.push('Everything was up to date: nothing changed.');
  return `${lines.join('\n')}\n`;
}
