/**
 * `npm run bench`: the event list over HTTP on the embedded engine at several calendar sizes,
 * beside a ceiling. For each size a server process (bench/server.ts) generates the calendar and
 * listens; this process drives it with autocannon and prints requests/s, p50/p99 latency,
 * responses by status, the share of the ceiling, the targets, and the server's peak RSS.
 *
 * - Cold scenarios (`default`, `window`, …): ≥ 1,000 distinct URLs each, in a server with its
 *   response cache off (RESPONSE_CACHE_BYTES=0), so they measure the uncached list path.
 * - `hot` (the default list's first page again and again) and `revalidate` (the same with
 *   `If-None-Match` set to the ETag its first GET answered): a second server process, started as
 *   deployed (the cache on).
 * - The ceiling (bench/ceiling-server.ts): a plain Fastify server answering with the bytes and
 *   headers of the calendar's default page, and an empty 304, measured with the same settings
 *   before, between and after the calendar's scenarios, so machine noise hits both; the mean of
 *   those runs is the ceiling.
 *
 *   npm run bench -- [--sizes 10000,100000,1000000] [--duration 10] [--warmup 3] [--connections 32]
 *                    [--scenarios default,window,…,hot,revalidate] [--quick] [--utc-zones]
 *                    [--cpu-prof dir] [--server-flags '--max-semi-space-size=32']
 *                    [--series 1000x100 [--compare-series]]
 *
 * `--baseline <checkout>` also starts that checkout's bench/server.ts (same calendar, same seed; its
 * cache off for the cold scenarios, on for hot and revalidate) and measures it in turns with this
 * one's, scenario by scenario, so both see the same machine; the table then gives each scenario's
 * ratio to it.
 *
 * `--series 1000x100` adds 1,000 series of 100 occurrences each to every calendar (bench/series.ts);
 * with `--compare-series`, this checkout's server without them is the baseline of the cold
 * scenarios (same single events, same URLs), and the report ends with each cold scenario's ratio
 * (target: ≥ 0.8×).
 *
 * `--quick` leaves out the million-event size; `BENCH_QUICK=1 npm run bench` passes it (the npm
 * script maps the variable to the flag, so no bench code reads the environment). `--utc-zones` gives
 * every event the UTC zone instead of its venue's, to separate time-zone formatting from the rest.
 */
import { type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { COLD_SCENARIOS, HOT_SCENARIOS, LIST_PATH, type RequestFacts, SCENARIOS, type Scenario, scenarioUrls } from './protocol.js';
import { type CeilingKind, loadFigures, progressLine, type Row, seriesRatioLines, table } from './report.js';
import { mib, processCpuMs, serverFigures, settleServer, startCeiling, startServer, stopCeiling, stopServer } from './server-process.js';

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
    // Another checkout (a `git worktree` of an older commit, with node_modules): its server runs
    // the cold scenarios too, each right after this one's, and every cold row shows the ratio.
    baseline: { type: 'string' },
    // Recurring events besides the single ones, `<series>x<occurrences each>` (bench/series.ts).
    series: { type: 'string' },
    // The cold scenarios also against a server without the series, in turns, with the ratio.
    'compare-series': { type: 'boolean', default: false },
  },
});
if (flags['compare-series'] && (flags.series === undefined || flags.baseline !== undefined)) {
  throw new Error('--compare-series needs --series and no --baseline');
}
const seriesArgs = flags.series === undefined ? [] : ['--series', flags.series];
const baselineLabel = flags['compare-series'] ? 'without series' : 'baseline';
const sizes = flags.sizes
  .split(',')
  .map(Number)
  .filter((size) => !(flags.quick && size >= 1_000_000));
const duration = Number(flags.duration);
const warmup = Number(flags.warmup);
const connections = Number(flags.connections);
const scenarios = flags.scenarios.split(',') as Scenario[];
for (const scenario of scenarios) if (!SCENARIOS.includes(scenario)) throw new Error(`Unknown scenario ${scenario}`);
const coldScenarios = COLD_SCENARIOS.filter((s) => scenarios.includes(s));
const hotScenarios = HOT_SCENARIOS.filter((s) => scenarios.includes(s));

interface Load {
  port: number;
  paths: string[];
  headers?: Record<string, string>;
}

async function load({ port, paths, headers = {} }: Load, seconds: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', headers, setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
  });
}

/** The headers a page is served with, less those of the connection and the framing (the ceiling sets its own). */
function pageHeaders(response: Response): Record<string, string> {
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  return Object.fromEntries([...response.headers].filter(([name]) => !skip.has(name)));
}

const rows: Row[] = [];

async function measureCeiling(size: number, { port, child }: { port: number; child: ChildProcess }): Promise<void> {
  const routes: Array<[CeilingKind, string]> = [
    ['ceiling 200', '/page'],
    ['ceiling 304', '/not-modified'],
  ];
  for (const [kind, path] of routes) {
    const target = { port, paths: [path] };
    if (warmup > 0) await load(target, warmup);
    const cpuBefore = processCpuMs(child.pid);
    const result = await load(target, duration);
    const cpuAfter = processCpuMs(child.pid);
    const cpuUsPerRequest =
      cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1000) / result.requests.total;
    const row: Row = { size, scenario: kind, cache: '–', urls: 1, ...loadFigures(result), cpuUsPerRequest };
    rows.push(row);
    console.log(progressLine(row, rows));
  }
}

/** Servers brought to a steady state since they started (bench/server-process.ts, settleServer). */
const settled = new WeakSet<ChildProcess>();

/**
 * One scenario against one server: warm-up, then the measured run with the server's figures. A
 * server's first scenario follows its warm-up with the settle step, so no scenario measures the
 * collection of the freshly generated calendar's garbage.
 */
async function measureScenario(
  size: number,
  scenario: Scenario,
  cache: Row['cache'],
  server: { child: ChildProcess },
  target: Load,
  baseline = false,
): Promise<Row> {
  if (warmup > 0) await load(target, warmup);
  if (!settled.has(server.child)) {
    settled.add(server.child);
    const { collected, idle, ms } = await settleServer(server.child);
    console.log(
      `  settled${baseline ? ' (baseline)' : ''}: ${collected ? 'collected, ' : ''}${idle ? 'idle' : 'still busy'} after ${(ms / 1000).toFixed(1)} s`,
    );
  }
  // The server's figures start afresh for the measured run.
  await serverFigures(server.child);
  const cpuBefore = processCpuMs(server.child.pid);
  const result = await load(target, duration);
  const cpuAfter = processCpuMs(server.child.pid);
  const figures = await serverFigures(server.child);
  const row: Row = {
    size,
    scenario,
    cache,
    urls: target.paths.length,
    ...loadFigures(result),
    peakRssMiB: mib(figures.peak),
    heapAtPeakMiB: mib(figures.heapAtPeak),
    stallMs: Math.round(figures.loopDelayMaxMs),
    gcShare: figures.gcMs / (duration * 1000),
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1000) / result.requests.total,
    baseline,
    ...(baseline ? { baselineLabel } : {}),
  };
  rows.push(row);
  console.log(progressLine(row, rows));
  return row;
}

/**
 * The baseline's server on the same calendar — another checkout's, or with `--compare-series` this
 * one's without the series (cold scenarios only) — its cache off for the cold scenarios. Its
 * bench/server.ts takes the cache size as an argument (its configuration is built from its own
 * arguments, not the environment); one from before the response cache has neither the cache nor
 * the argument, and gets none.
 */
async function startBaseline(size: number, cold: boolean): Promise<{ child: ChildProcess; port: number }> {
  const script = flags.baseline === undefined ? undefined : path.resolve(flags.baseline, 'bench/server.ts');
  const knowsCache = script === undefined || readFileSync(script, 'utf8').includes("'response-cache-bytes'");
  const args = [...(flags['utc-zones'] ? ['--utc-zones'] : []), ...(cold && knowsCache ? ['--response-cache-bytes', '0'] : [])];
  const server = await startServer(size, args, [], cold ? { RESPONSE_CACHE_BYTES: '0' } : {}, script);
  console.log(
    `  ${baselineLabel} (${flags.baseline ?? 'this checkout'}): generated in ${(server.generatedMs / 1000).toFixed(1)} s; listening on ${server.port}`,
  );
  return server;
}

/** The requests of a scenario against the server on `port`, whose first GET of the list answered `first`. */
function targetOf(scenario: Scenario, port: number, first: Response, facts: RequestFacts): Load {
  if (scenario === 'hot') return { port, paths: [LIST_PATH] };
  if (scenario === 'revalidate') {
    const etag = first.headers.get('etag');
    if (etag === null) console.log('  revalidate: the first GET answered no ETag; sent without If-None-Match');
    return { port, paths: [LIST_PATH], headers: etag === null ? {} : { 'if-none-match': etag } };
  }
  return { port, paths: scenarioUrls(scenario, facts) };
}

/** Measures the scenarios against one server process; the cold ones with the response cache off. */
async function serverPhase(size: number, list: readonly Scenario[], cold: boolean, ceiling: { port?: number; child?: ChildProcess }): Promise<void> {
  const cache = cold ? ['--response-cache-bytes', '0'] : [];
  const { child, port, facts, generatedMs, rss } = await startServer(
    size,
    [...(flags['utc-zones'] ? ['--utc-zones'] : []), ...cache, ...seriesArgs],
    [
      ...(flags['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${flags['cpu-prof']}`]),
      ...flags['server-flags'].split(' ').filter((flag) => flag !== ''),
    ],
    cold ? { RESPONSE_CACHE_BYTES: '0' } : {},
  );
  console.log(
    `  ${cold ? 'cold server (response cache off)' : 'hot server (as deployed)'}: generated in ${(generatedMs / 1000).toFixed(1)} s${facts.series > 0 ? ` (with ${facts.series} series, ${facts.occurrences} occurrences)` : ''}; RSS ${mib(rss)} MiB; listening on ${port}`,
  );
  const baseline = flags.baseline !== undefined || (cold && flags['compare-series']) ? await startBaseline(size, cold) : undefined;
  try {
    const first = await fetch(`http://127.0.0.1:${port}${LIST_PATH}`);
    const body = Buffer.from(await first.arrayBuffer());
    if (ceiling.port === undefined) {
      // The ceiling serves exactly this page, with its headers, for the size's every run.
      const started = await startCeiling(body, pageHeaders(first));
      Object.assign(ceiling, started);
      console.log(`  ceiling: ${body.length} bytes, ${first.headers.get('content-type')}`);
      await measureCeiling(size, started);
    }
    for (const scenario of list) {
      const target = targetOf(scenario, port, first, facts);
      const cache = cold ? 'off' : 'on';
      if (baseline === undefined) await measureScenario(size, scenario, cache, { child }, target);
      else {
        // In turns, the baseline first every other scenario, so a drift of the machine favours neither.
        // Its revalidation sends the tag its own first GET answered (its calendar's dates follow its own clock).
        const baselineTarget =
          scenario === 'revalidate'
            ? targetOf(scenario, baseline.port, await fetch(`http://127.0.0.1:${baseline.port}${LIST_PATH}`), facts)
            : { ...target, port: baseline.port };
        const againstBaseline = (): Promise<Row> => measureScenario(size, scenario, cache, baseline, baselineTarget, true);
        const earlier = list.indexOf(scenario) % 2 === 1 ? await againstBaseline() : undefined;
        const row = await measureScenario(size, scenario, cache, { child }, target);
        const other = earlier ?? (await againstBaseline());
        row.vsBaseline = row.rps / other.rps;
        if (row.cpuUsPerRequest !== undefined && other.cpuUsPerRequest !== undefined) row.cpuVsBaseline = row.cpuUsPerRequest / other.cpuUsPerRequest;
        console.log(`  ${scenario.padEnd(11)} this server / ${baselineLabel}: ${row.vsBaseline.toFixed(2)}×`);
      }
    }
  } finally {
    await stopServer(child);
    if (baseline !== undefined) await stopServer(baseline.child);
  }
  await measureCeiling(size, { port: ceiling.port!, child: ceiling.child! });
}

for (const size of sizes) {
  console.log(`\n${size.toLocaleString('en')} events: generating…`);
  const ceiling: { port?: number; child?: ChildProcess } = {};
  try {
    if (coldScenarios.length > 0) await serverPhase(size, coldScenarios, true, ceiling);
    if (hotScenarios.length > 0) await serverPhase(size, hotScenarios, false, ceiling);
  } finally {
    if (ceiling.child !== undefined) await stopCeiling(ceiling.child);
  }
}

console.log(
  `\nGET ${LIST_PATH}, embedded engine, ${connections} connections, ${duration} s per scenario after ${warmup} s warm-up.` +
    `\nCold scenarios ran with the response cache off (RESPONSE_CACHE_BYTES=0); hot and revalidate on a server started as deployed.` +
    `\nCeiling: plain Fastify serving the default page's bytes and headers ('ceiling 200') and an empty 304 ('ceiling 304'),` +
    `\nmeasured before, between and after the calendar's scenarios; shown and compared as the MEAN of its runs (revalidate against the 304).\n`,
);
if (flags.baseline !== undefined) {
  console.log(
    `Baseline: ${flags.baseline}; 'vs baseline' is this checkout's req/s over the baseline's, and its server CPU time per request over the baseline's, measured in turns.\n`,
  );
}
console.log(table(rows));
if (flags['compare-series']) {
  console.log(`\nWith ${flags.series} series over without (req/s and server CPU per request, measured in turns):`);
  console.log(seriesRatioLines(rows).join('\n'));
}
