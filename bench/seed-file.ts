/**
 * The seed bench's input (bench/seed.ts, bench/instructions.ts): the venues, organizers, categories
 * and tags of seeds/, and a generated events file that references them, in JSON Lines or CSV.
 */
import { copyFileSync, createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomGenerator as random } from './calendar.js';

export interface SeedFileOptions {
  events: number;
  format: 'jsonl' | 'csv';
}

/** Writes seeds/' small files and `events` generated events into `dir`; returns the events file's path. */
export async function writeSeedFiles(dir: string, options: SeedFileOptions): Promise<string> {
  const seeds = fileURLToPath(new URL('../seeds/', import.meta.url));
  for (const name of ['categories', 'tags', 'venues', 'organizers']) copyFileSync(`${seeds}${name}.json`, path.join(dir, `${name}.json`));
  const eventsFile = path.join(dir, `events-bench.${options.format}`);
  await writeEvents(eventsFile, options);
  return eventsFile;
}

const WORDS = [
  'concert',
  'jazz',
  'night',
  'festival',
  'workshop',
  'lecture',
  'market',
  'walk',
  'screening',
  'recital',
  'dance',
  'opera',
  'family',
  'morning',
  'evening',
  'spring',
  'summer',
  'autumn',
  'winter',
  'harbour',
  'garden',
  'modern',
  'classic',
  'piano',
  'strings',
];

/** Writes the events file, streaming (the file never exists in memory). */
async function writeEvents(file: string, options: SeedFileOptions): Promise<void> {
  const seeds = fileURLToPath(new URL('../seeds/', import.meta.url));
  const load = (name: string) => JSON.parse(readFileSync(`${seeds}${name}.json`, 'utf8')) as Array<Record<string, unknown> & { slug: string }>;
  const venues = load('venues');
  const organizers = load('organizers').map((o) => o.slug);
  const categories = load('categories').map((c) => c.slug);
  const tags = load('tags').map((t) => t.slug);
  const zones = new Map(
    load('events')
      .filter((e) => e.venue)
      .map((e) => [e.venue as string, e.timezone as string]),
  );
  const next = random(42);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)] as T;
  const out = createWriteStream(file);
  const csvCell = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  if (options.format === 'csv')
    out.write('slug,title,start_date,end_date,timezone,venue,organizer,categories,tags,cost,website,featured,post_parent,description\n');
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
