/**
 * Start-up seeding (design §7 SEED_ON_START): an empty embedded store gets the calendar in seeds/,
 * so `npm start` shows data at once. Records reference each other by slug.
 * Events go through the events service, so they are validated like API writes.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Config } from '../config.js';
import { type EventCreate } from '../schemas/events.js';
import { type OrganizerCreate } from '../schemas/organizers.js';
import { type VenueCreate } from '../schemas/venues.js';
import { type Storage } from '../storage/port.js';
import { createEventsService } from './events.js';
import { createOrganizersService } from './organizers.js';
import { createTermsService } from './terms.js';
import { createVenuesService } from './venues.js';

const SEEDS = fileURLToPath(new URL('../../seeds/', import.meta.url));

interface SeedTerm { name: string; slug?: string; description?: string; parent?: string }
/** Seed venues and organizers are API bodies plus the slug other seed records use to reference them. */
type SeedVenue = VenueCreate & { slug?: string };
type SeedOrganizer = OrganizerCreate & { slug?: string };
type SeedEvent = Omit<EventCreate, 'venue' | 'organizer' | 'categories' | 'tags'> & { venue?: string; organizer?: string[]; categories?: string[]; tags?: string[] };

async function load<T>(file: string): Promise<T[]> {
  return JSON.parse(await readFile(`${SEEDS}${file}`, 'utf8')) as T[];
}

export async function isEmpty(storage: Storage): Promise<boolean> {
  const counts = await Promise.all([
    storage.events.count({}),
    storage.venues.count({}),
    storage.organizers.count({}),
    storage.categories.count({}),
    storage.tags.count({}),
  ]);
  return counts.every((n) => n === 0);
}

export async function seedIfEmpty({ storage, config, log }: { storage: Storage; config: Config; log: { info(msg: string): void } }): Promise<void> {
  const wanted = config.seedOnStart ?? storage.engine === 'embedded';
  if (!wanted) return;
  if (!(await isEmpty(storage))) {
    log.info('seed: the store has data; nothing loaded');
    return;
  }
  const bySlug = { categories: new Map<string, number>(), tags: new Map<string, number>(), venues: new Map<string, number>(), organizers: new Map<string, number>() };

  const caller = { role: 'editor' as const, authorId: 0 };
  const deps = { storage, siteTimezone: config.siteTimezone, perPageMax: config.perPageMax };
  const terms = { categories: createTermsService('categories', deps), tags: createTermsService('tags', deps) };
  for (const taxonomy of ['categories', 'tags'] as const) {
    for (const { parent, ...t } of await load<SeedTerm>(`${taxonomy}.json`)) {
      const { doc } = await terms[taxonomy].create(parent ? { ...t, parent: bySlug[taxonomy].get(parent) ?? 0 } : t);
      bySlug[taxonomy].set(doc.slug, doc._id);
    }
  }
  const venues = createVenuesService(deps);
  const organizers = createOrganizersService(deps);
  for (const { slug, ...v } of await load<SeedVenue>('venues.json')) {
    const { doc } = await venues.create(v, caller);
    bySlug.venues.set(slug ?? doc.slug, doc._id);
  }
  for (const { slug, ...o } of await load<SeedOrganizer>('organizers.json')) {
    const { doc } = await organizers.create(o, caller);
    bySlug.organizers.set(slug ?? doc.slug, doc._id);
  }

  const events = createEventsService({ storage, siteTimezone: config.siteTimezone, perPageMax: config.perPageMax, venues, organizers, ...terms });
  const ids = (map: Map<string, number>, slugs: string[] | undefined) => (slugs ?? []).map((s) => map.get(s)).filter((id): id is number => id !== undefined);
  const seeded = await load<SeedEvent>('events.json');
  for (const e of seeded) {
    const venueId = e.venue ? bySlug.venues.get(e.venue) : undefined;
    await events.create(
      {
        ...e,
        ...(venueId !== undefined ? { venue: venueId } : {}),
        organizer: ids(bySlug.organizers, e.organizer),
        categories: ids(bySlug.categories, e.categories),
        tags: ids(bySlug.tags, e.tags),
      },
      caller,
    );
  }
  log.info(`seed: loaded ${seeded.length} events, ${bySlug.venues.size} venues, ${bySlug.organizers.size} organizers, ${bySlug.categories.size} categories, ${bySlug.tags.size} tags`);
}
