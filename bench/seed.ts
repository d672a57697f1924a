/**
 * Seed CLI throughput (issue 9.6): generates a large events file (JSON Lines or CSV) that references
 * the venues, organizers, categories and tags of seeds/, loads it through the seed command on the
 * configured engine (embedded unless STORAGE/MONGODB_URI say otherwise), and prints records/s — for
 * the first load (creates) and a second one (every record compared, nothing written) — and the peak RSS.
 *
 *   npm run bench:seed -- [--events 100000] [--format jsonl|csv] [--runs 2] [--keep]
 *
 * Target: ≥ 20,000 records/s on the embedded engine.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { seedCli } from '../src/cli/seed.js';
import { loadConfig } from '../src/config.js';
import { createStorage } from '../src/storage/create-storage.js';
import { randomGenerator as random } from './calendar.js';

const TARGET = 20_000;

interface Options {
  events: number;
  format: 'jsonl' | 'csv';
  runs: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { events: 100_000, format: 'jsonl', runs: 2, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--events') options.events = Number(argv[++i]);
    else if (arg === '--format') options.format = argv[++i] === 'csv' ? 'csv' : 'jsonl';
    else if (arg === '--runs') options.runs = Number(argv[++i]);
    else if (arg === '--keep') options.keep = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.events) || options.events < 1) throw new Error('--events needs a positive whole number');
  return options;
}

const WORDS = ['concert', 'jazz', 'night', 'festival', 'workshop', 'lecture', 'market', 'walk', 'screening', 'recital', 'dance', 'opera', 'family', 'morning', 'evening', 'spring', 'summer', 'autumn', 'winter', 'harbour', 'garden', 'modern', 'classic', 'piano', 'strings'];

/** Writes the events file, streaming (the file never exists in memory). */
async function writeEvents(file: string, options: Options): Promise<void> {
  const seeds = fileURLToPath(new URL('../seeds/', import.meta.url));
  const load = (name: string) => JSON.parse(readFileSync(`${seeds}${name}.json`, 'utf8')) as Array<Record<string, unknown> & { slug: string }>;
  const venues = load('venues');
  const organizers = load('organizers').map((o) => o.slug);
  const categories = load('categories').map((c) => c.slug);
  const tags = load('tags').map((t) => t.slug);
  const zones = new Map(load('events').filter((e) => e.venue).map((e) => [e.venue as string, e.timezone as string]));
  const next = random(42);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)] as T;
  const out = createWriteStream(file);
  const csvCell = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  if (options.format === 'csv') out.write('slug,title,start_date,end_date,timezone,venue,organizer,categories,tags,cost,website,featured,post_parent,description\n');
  const base = Date.UTC(new Date().getUTCFullYear() + 1, 0, 1);
  let parent: string | null = null;
  for (let i = 0; i < options.events; i++) {
    const venue = pick(venues).slug;
    const start = new Date(base + Math.floor(next() * 365 * 24) * 3_600_000);
    const end = new Date(start.getTime() + (1 + Math.floor(next() * 3)) * 3_600_000);
    const wall = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
    const slug = `bench-event-${i}`;
    // Every tenth event opens a short series; the next few are its occurrences.
    const postParent = i % 10 === 0 ? null : i % 10 < 4 ? parent : null;
    if (i % 10 === 0) parent = slug;
    const record = {
      slug,
      title: `${pick(WORDS)} ${pick(WORDS)} ${i}`.replace(/^./, (c) => c.toUpperCase()),
      start_date: wall(start),
      end_date: wall(end),
      timezone: zones.get(venue) ?? 'UTC',
      venue,
      organizer: [pick(organizers)],
      categories: [pick(categories)],
      tags: [pick(tags), pick(tags)].filter((t, k, all) => all.indexOf(t) === k),
      cost: `${5 + Math.floor(next() * 60)}€`,
      ...(i % 3 === 0 ? { website: `https://example.org/events/${slug}` } : {}),
      ...(i % 17 === 0 ? { featured: true } : {}),
      ...(postParent ? { post_parent: postParent } : {}),
      description: `<p>${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} at ${venue}.</p>`,
    };
    const line =
      options.format === 'jsonl'
        ? `${JSON.stringify(record)}\n`
        : `${[record.slug, csvCell(record.title), record.start_date, record.end_date, record.timezone, record.venue, record.organizer.join(','), record.categories.join(','), csvCell(record.tags.join(',')), csvCell(record.cost), record.website ?? '', record.featured ? 'true' : '', record.post_parent ?? '', csvCell(record.description)].join(',')}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(path.join(tmpdir(), 'calendar-bench-seed-'));
  const seeds = fileURLToPath(new URL('../seeds/', import.meta.url));
  for (const name of ['categories', 'tags', 'venues', 'organizers']) copyFileSync(`${seeds}${name}.json`, path.join(dir, `${name}.json`));
  const eventsFile = path.join(dir, `events-bench.${options.format}`);
  let t = performance.now();
  await writeEvents(eventsFile, options);
  process.stdout.write(`generated ${options.events.toLocaleString('en-US')} events (${options.format}) in ${((performance.now() - t) / 1000).toFixed(1)} s: ${eventsFile}\n`);

  // The configured engine, embedded by default; one storage for all runs (the second run compares).
  const env = { ...process.env, STORAGE: process.env.STORAGE ?? (process.env.MONGODB_URI ? 'auto' : 'embedded') };
  const config = loadConfig(env);
  const storage = await createStorage(config, { info: (m) => process.stdout.write(`${m}\n`), warn: (m) => process.stdout.write(`${m}\n`) });
  await storage.ensureIndexes();
  try {
    for (let run = 1; run <= options.runs; run++) {
      t = performance.now();
      const cpu = process.cpuUsage();
      const code = await seedCli([dir], { storage, env });
      const seconds = (performance.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      const records = options.events + 30 + 30 + 40 + 25;
      const rate = Math.round(records / seconds);
      process.stdout.write(
        `run ${run}: exit ${code}, ${records.toLocaleString('en-US')} records in ${seconds.toFixed(2)} s = ${rate.toLocaleString('en-US')} records/s ` +
          `(${run === 1 ? 'creates' : 'all unchanged'}; target ≥ ${TARGET.toLocaleString('en-US')}: ${rate >= TARGET ? 'met' : 'NOT met'}); ` +
          `CPU ${cpuSeconds.toFixed(2)} s = ${Math.round(records / cpuSeconds).toLocaleString('en-US')} records per CPU-second\n`,
      );
    }
  } finally {
    await storage.close();
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB (${storage.engine} engine: the store itself lives in this process)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
