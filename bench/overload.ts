/**
 * `npm run bench:overload`: far more load than one process can serve — 500 concurrent
 * connections for 30 s over a mix of event-list requests — with load shedding on, as deployed
 * (MAX_EVENT_LOOP_DELAY_MS, default 1000 ms here). It prints what every request got (only 200s and
 * shed 503s are acceptable: no other status, no socket error, no timeout), the server's memory
 * before, during and after, and how it recovers: how soon after the load stops a request is
 * answered normally again, and the latency of the next ones.
 *
 *   npm run bench:overload -- [--events 100000] [--connections 500] [--duration 30] [--shed-ms 1000]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { scenarioUrls } from './protocol.js';
import { mib, serverFigures, startServer, stopServer } from './server-process.js';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '500' },
    duration: { type: 'string', default: '30' },
    'shed-ms': { type: 'string', default: '1000' },
  },
});
const events = Number(flags.events);
const connections = Number(flags.connections);
const duration = Number(flags.duration);

console.log(`\n${events.toLocaleString('en')} events: generating…`);
const server = await startServer(events, ['--shed-ms', flags['shed-ms']]);
const base = `http://127.0.0.1:${server.port}`;
const urls = (['default', 'window', 'category', 'venue', 'search', 'near'] as const).flatMap((scenario) => scenarioUrls(scenario, server.facts, 400));
console.log(`  generated in ${(server.generatedMs / 1000).toFixed(1)} s; server RSS ${mib(server.rss)} MiB; ${urls.length} URLs`);

try {
  // Warm up gently (JIT, clause caches), then start the measurement afresh.
  await autocannon({
    url: base,
    connections: 8,
    duration: 3,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: urls[Math.floor(Math.random() * urls.length)]! }) }],
  });
  const before = await serverFigures(server.child);

  let next = 0;
  const statuses = new Map<number, number>();
  const rssSamples: number[] = [];
  const sampler = setInterval(() => {
    void serverFigures(server.child).then((figures) => rssSamples.push(figures.current));
  }, 1000);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections,
        duration,
        // A request still unanswered after the server's own request timeout counts as a timeout.
        timeout: 30,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: urls[next++ % urls.length]! }) }],
      },
      (error: Error | null, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode) => statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1));
  });
  clearInterval(sampler);
  const during = await serverFigures(server.child);

  // Recovery: the first normal answer after the load stops, then 50 requests one after another.
  const stopped = performance.now();
  let recoveredMs = Number.NaN;
  for (let attempt = 0; attempt < 600 && Number.isNaN(recoveredMs); attempt++) {
    const response = await fetch(`${base}${urls[attempt % urls.length]}`);
    await response.arrayBuffer();
    if (response.status === 200) recoveredMs = performance.now() - stopped;
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const latencies: number[] = [];
  let afterErrors = 0;
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    const response = await fetch(`${base}${urls[(i * 37) % urls.length]}`);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    if (response.status !== 200) afterErrors += 1;
  }
  latencies.sort((a, b) => a - b);
  const after = await serverFigures(server.child);

  const total = [...statuses.values()].reduce((sum, n) => sum + n, 0);
  const other = [...statuses].filter(([code]) => code !== 200 && code !== 503).reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `\nOverload: ${connections} connections for ${duration} s, GET /calendar/events/v1/events (mixed filters), MAX_EVENT_LOOP_DELAY_MS=${flags['shed-ms']}\n`,
  );
  console.log('| figure | value |');
  console.log('|:--|--:|');
  const row = (name: string, value: string): void => console.log(`| ${name} | ${value} |`);
  row('responses', total.toLocaleString('en'));
  row('200 (served)', `${(statuses.get(200) ?? 0).toLocaleString('en')} (${result.requests.average.toFixed(0)} req/s overall)`);
  row('503 `server-overloaded` (shed, with Retry-After)', (statuses.get(503) ?? 0).toLocaleString('en'));
  row('any other status', String(other));
  row('socket errors / timeouts', `${result.errors} / ${result.timeouts}`);
  row('latency p50 / p99 / max (all responses)', `${result.latency.p50} / ${result.latency.p99} / ${result.latency.max} ms`);
  row('server RSS before / peak during / after', `${mib(before.current)} / ${mib(during.peak)} / ${mib(after.current)} MiB`);
  row('server RSS each second during the load (min–max)', `${mib(Math.min(...rssSamples))}–${mib(Math.max(...rssSamples))} MiB`);
  row('first 200 after the load stopped', `${recoveredMs.toFixed(0)} ms`);
  row('next 50 requests, one at a time: p50 / max, non-200', `${latencies[25]!.toFixed(1)} / ${latencies[49]!.toFixed(1)} ms, ${afterErrors}`);
  if (other > 0 || result.errors > 0 || result.timeouts > 0 || afterErrors > 0 || Number.isNaN(recoveredMs)) process.exitCode = 1;
} finally {
  await stopServer(server.child);
}
