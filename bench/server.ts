/**
 * The benchmark's server process: generates a calendar straight into an embedded storage, starts
 * the service on it on a free port of 127.0.0.1, and reports to the parent (bench/run.ts) over IPC:
 * `ready` with the port and the facts requests are built from, then `rss` samples on request.
 * A separate process so the load generator does not share the server's core.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { indexes } from '../indexes/index.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createEmbeddedStorage } from '../src/storage/embedded/index.js';
import { generateCalendar } from './calendar.js';
import { type ServerMessage, type ParentMessage, sampleFacts } from './protocol.js';
import { parseSeriesOption } from './series.js';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string' },
    seed: { type: 'string', default: '42' },
    'utc-zones': { type: 'boolean', default: false },
    // Load shedding threshold (MAX_EVENT_LOOP_DELAY_MS); 0, the default here, measures the service
    // without its protection. The overload bench turns it on.
    'shed-ms': { type: 'string', default: '0' },
    // RESPONSE_CACHE_BYTES: 0 turns the response cache off (the cold scenarios); unset, the default.
    'response-cache-bytes': { type: 'string' },
    // Recurring events besides the single ones: `<series>x<occurrences each>` (bench/series.ts).
    series: { type: 'string' },
  },
});
const events = Number(flags.events);
if (!Number.isSafeInteger(events) || events <= 0) throw new Error('--events must be a positive integer');

const send = (message: ServerMessage): void => {
  process.send!(message);
};

// The bench measures the service, not its protections: no rate limit, no load shedding (it would
// turn slow answers into fast 503s); logs off, seeding off (the store is filled below).
const config = loadConfig({
  SITE_TIMEZONE: 'UTC',
  STORAGE: 'embedded',
  SEED_ON_START: 'false',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_READS: '0',
  RATE_LIMIT_WRITES: '0',
  MAX_EVENT_LOOP_DELAY_MS: flags['shed-ms'],
  ...(flags['response-cache-bytes'] === undefined ? {} : { RESPONSE_CACHE_BYTES: flags['response-cache-bytes'] }),
});

const started = performance.now();
const storage = createEmbeddedStorage({ indexes, reason: 'benchmark' });
const facts = await generateCalendar(storage, {
  events,
  now: new Date(),
  seed: Number(flags.seed),
  utcZones: flags['utc-zones'],
  ...(flags.series === undefined ? {} : { series: { ...parseSeriesOption(flags.series), horizonDays: config.recurrenceHorizonDays } }),
});
const generatedMs = performance.now() - started;
// Building the calendar leaves garbage (a million events' inputs and the index builds' scratch):
// collected now, as the warm-up would only partly do, so the first scenario measures serving
// rather than the collector finishing the build (a 0.8 s stall in the default listing at a million).
(globalThis as { gc?: () => void }).gc?.();

const app = buildApp({ config, storage, logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('The server has no TCP address.');

// Longest event-loop stall and time spent in garbage collection, per scenario: what p99 is made of.
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

// Peak RSS, and the V8 heap's reserved size at that peak: RSS above the heap is Buffers, code and
// the allocator's slack; heap above the live data is garbage waiting for the next collection.
let peakRss = process.memoryUsage().rss;
let heapAtPeak = process.memoryUsage().heapTotal;
setInterval(() => {
  const { rss, heapTotal } = process.memoryUsage();
  if (rss > peakRss) [peakRss, heapAtPeak] = [rss, heapTotal];
}, 50).unref();

process.on('message', (message: ParentMessage) => {
  if (message.type === 'rss') {
    const { rss, heapTotal } = process.memoryUsage();
    if (rss > peakRss) [peakRss, heapAtPeak] = [rss, heapTotal];
    send({ type: 'rss', peak: peakRss, heapAtPeak, current: rss, loopDelayMaxMs: loopDelay.max / 1e6, gcMs });
    // Each scenario reports its own figures.
    [peakRss, heapAtPeak] = [rss, heapTotal];
    loopDelay.reset();
    gcMs = 0;
  } else if (message.type === 'settle') {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    send({ type: 'settled', collected: gc !== undefined });
  } else if (message.type === 'stop') {
    void app.close().then(() => process.exit(0));
  }
});

send({ type: 'ready', port: address.port, generatedMs, rss: process.memoryUsage().rss, facts: sampleFacts(facts) });
