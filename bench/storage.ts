/**
 * Storage-level micro-benchmark (a development tool): the event list queries the service compiles,
 * run straight against the embedded engine, per scenario. Usage:
 *   npx tsx bench/storage.ts [--sizes 10000,100000] [--queries 2000] [--series 1000x100]
 * `--series` adds recurring events (bench/series.ts) to each calendar.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { indexes } from '../indexes/index.js';
import { compileEventList, type EventListInput } from '../src/query/events.js';
import { createEmbeddedStorage } from '../src/storage/embedded/index.js';
import { type CalendarFacts, generateCalendar, randomGenerator } from './calendar.js';
import { parseSeriesOption } from './series.js';

const { values: flags } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, queries: { type: 'string', default: '2000' }, series: { type: 'string' } },
});
const series = flags.series === undefined ? undefined : { ...parseSeriesOption(flags.series), horizonDays: 730 };
const sizes = flags.sizes.split(',').map(Number);
const queries = Number(flags.queries);

type Scenario = (facts: CalendarFacts, random: () => number) => EventListInput;

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;
const day = (date: Date): string => date.toISOString().slice(0, 10);
const page = (random: () => number): number => 1 + Math.floor(random() ** 2 * 20);

const scenarios: Record<string, Scenario> = {
  default: (_f, r) => ({ dates: {}, statuses: ['publish'], page: page(r) }),
  window: (f, r) => {
    const start = f.from.getTime() + r() * (f.to.getTime() - f.from.getTime());
    const end = start + (1 + Math.floor(r() * 60)) * 86_400_000;
    return { dates: { start_date: day(new Date(start)), end_date: day(new Date(end)) }, statuses: ['publish'], page: 1 + Math.floor(r() * 3) };
  },
  category: (f, r) => ({ dates: {}, statuses: ['publish'], categoryIds: [pick(f.categoryIds, r)], page: page(r) }),
  venue: (f, r) => ({ dates: {}, statuses: ['publish'], venueIds: [pick(f.venueIds, r)] }),
  search: (f, r) => ({
    dates: {},
    statuses: ['publish'],
    search: r() < 0.7 ? pick(f.words, r) : `${pick(f.words, r)} ${pick(f.words, r)}`,
    page: 1 + Math.floor(r() * 3),
  }),
  include: (f, r) => ({ dates: {}, statuses: ['publish'], include: Array.from({ length: 1 + Math.floor(r() * 20) }, () => pick(f.eventIds, r)) }),
  token: (_f, r) => ({ dates: {}, statuses: ['publish', 'future', 'draft', 'pending', 'private'], page: page(r) }),
};

for (const size of sizes) {
  const storage = createEmbeddedStorage({ indexes, reason: 'bench' });
  const started = performance.now();
  const facts = await generateCalendar(storage, { events: size, now: new Date(), ...(series === undefined ? {} : { series }) });
  console.log(
    `\n${size} events${series === undefined ? '' : ` and ${facts.occurrences} occurrences of ${facts.seriesIds.length} series`} generated in ${((performance.now() - started) / 1000).toFixed(1)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
  );
  console.log('scenario   mean µs   p50 µs   p99 µs   max µs   avg total');
  for (const [name, scenario] of Object.entries(scenarios)) {
    const random = randomGenerator(7);
    const times: number[] = [];
    let totals = 0;
    for (let i = 0; i < queries; i++) {
      const input = scenario(facts, random);
      const { query } = compileEventList(input, { now: new Date(), siteTimezone: 'UTC', perPageMax: 50 });
      const t0 = performance.now();
      const result = await storage.events.findPage(query);
      times.push((performance.now() - t0) * 1000);
      totals += result.total;
    }
    const sorted = [...times].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(
      `${name.padEnd(9)} ${mean.toFixed(0).padStart(8)} ${at(0.5).toFixed(0).padStart(8)} ${at(0.99).toFixed(0).padStart(8)} ${sorted[sorted.length - 1]!.toFixed(0).padStart(8)} ${(totals / queries).toFixed(0).padStart(10)}`,
    );
  }
  await storage.close();
}
