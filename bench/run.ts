/**
 * `npm run bench`: the event list over HTTP on the embedded engine at several calendar sizes.
 * For each size a server process (bench/server.ts) generates the calendar and listens; this
 * process drives `GET /calendar/events/v1/events` with autocannon over ≥ 1,000 distinct URLs per
 * scenario, after a short warm-up (JIT, clause caches), and prints requests/s, p50/p99 latency,
 * non-2xx responses and the server's peak RSS per scenario.
 *
 *   npm run bench -- [--sizes 10000,100000,1000000] [--duration 10] [--warmup 3] [--connections 32]
 *                    [--scenarios default,window,…] [--quick] [--utc-zones] [--cpu-prof dir]
 *                    [--server-flags '--max-semi-space-size=32']
 *
 * `--quick` leaves out the million-event size; `BENCH_QUICK=1 npm run bench` passes it (the npm
 * script maps the variable to the flag, so no bench code reads the environment). `--utc-zones` gives
 * every event the UTC zone instead of its venue's, to separate time-zone formatting from the rest.
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SCENARIOS, type Scenario, scenarioUrls } from './protocol.js';
import { mib, serverFigures, startServer, stopServer } from './server-process.js';

const { values: flags } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    scenarios: { type: 'string', default: SCENARIOS.join(',') },
    quick: { type: 'boolean', default: false },
    'utc-zones': { type: 'boolean', default: false },
    // Writes a V8 CPU profile of each server process into this directory (open in Chrome DevTools).
    'cpu-prof': { type: 'string' },
    // Extra Node/V8 options for the server processes (heap tuning experiments), space-separated.
    'server-flags': { type: 'string', default: '' },
  },
});
const sizes = flags.sizes
  .split(',')
  .map(Number)
  .filter((size) => !(flags.quick && size >= 1_000_000));
const duration = Number(flags.duration);
const warmup = Number(flags.warmup);
const connections = Number(flags.connections);
const scenarios = flags.scenarios.split(',') as Scenario[];
for (const scenario of scenarios) if (!SCENARIOS.includes(scenario)) throw new Error(`Unknown scenario ${scenario}`);

interface Row {
  size: number;
  scenario: Scenario;
  urls: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMiB: number;
  /** The V8 heap's reserved size when RSS peaked. */
  heapAtPeakMiB: number;
  /** Longest event-loop stall in the server, and its share of time in garbage collection. */
  stallMs: number;
  gcShare: number;
}

async function load(port: number, urls: string[], seconds: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: urls[next++ % urls.length]! }),
      },
    ],
  });
}

const rows: Row[] = [];

for (const size of sizes) {
  console.log(`\n${size.toLocaleString('en')} events: generating…`);
  const { child, port, facts, generatedMs, rss } = await startServer(size, flags['utc-zones'] ? ['--utc-zones'] : [], [
    ...(flags['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${flags['cpu-prof']}`]),
    ...flags['server-flags'].split(' ').filter((flag) => flag !== ''),
  ]);
  console.log(`  generated in ${(generatedMs / 1000).toFixed(1)} s; server RSS ${mib(rss)} MiB; listening on ${port}`);
  try {
    for (const scenario of scenarios) {
      const urls = scenarioUrls(scenario, facts);
      if (warmup > 0) await load(port, urls, warmup);
      await serverFigures(child);
      const result = await load(port, urls, duration);
      const figures = await serverFigures(child);
      const row: Row = {
        size,
        scenario,
        urls: urls.length,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        peakRssMiB: mib(figures.peak),
        heapAtPeakMiB: mib(figures.heapAtPeak),
        stallMs: Math.round(figures.loopDelayMaxMs),
        gcShare: figures.gcMs / (duration * 1000),
      };
      rows.push(row);
      console.log(
        `  ${scenario.padEnd(9)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  RSS ${row.peakRssMiB} MiB (heap ${row.heapAtPeakMiB})  longest stall ${row.stallMs} ms  GC ${(row.gcShare * 100).toFixed(0)}%`,
      );
    }
  } finally {
    await stopServer(child);
  }
}

console.log(`\nGET /calendar/events/v1/events, embedded engine, ${connections} connections, ${duration} s per scenario after ${warmup} s warm-up\n`);
const header = ['events', 'scenario', 'URLs', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'peak RSS MiB', 'heap at peak', 'longest stall ms', 'GC'];
const table = rows.map((r) => [
  r.size.toLocaleString('en'),
  r.scenario,
  String(r.urls),
  r.rps.toFixed(0),
  String(r.p50),
  String(r.p99),
  String(r.non2xx),
  String(r.errors),
  String(r.peakRssMiB),
  String(r.heapAtPeakMiB),
  String(r.stallMs),
  `${(r.gcShare * 100).toFixed(0)}%`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
const line = (cells: string[]): string => `| ${cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w, i) => (i < 2 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of table) console.log(line(row));
