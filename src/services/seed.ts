/**
 * Start-up seeding (design §7 SEED_ON_START): an empty embedded store gets the calendar in seeds/,
 * so `npm start` shows data at once. Records reference each other by slug.
 * Events go through the events service, so they are validated like API writes.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Config } from '../config.js';
import { slugFrom } from '../lib/slug.js';
import { searchTermsOf } from '../lib/text.js';
import { type EventCreate } from '../schemas/events.js';
import { type OrganizerDoc, type Storage, type TermDoc, type VenueDoc } from '../storage/port.js';
import { createEventsService } from './events.js';

const SEEDS = fileURLToPath(new URL('../../seeds/', import.meta.url));

interface SeedTerm { name: string; slug?: string; description?: string; parent?: string }
interface SeedVenue { slug?: string; venue: string; address?: string; city?: string; country?: string; state?: string; province?: string; zip?: string; phone?: string; website?: string; geo_lat?: number; geo_lng?: number }
interface SeedOrganizer { slug?: string; organizer: string; phone?: string; website?: string; email?: string }
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
  const now = new Date();
  const bySlug = { categories: new Map<string, number>(), tags: new Map<string, number>(), venues: new Map<string, number>(), organizers: new Map<string, number>() };

  for (const taxonomy of ['categories', 'tags'] as const) {
    for (const t of await load<SeedTerm>(`${taxonomy}.json`)) {
      const _id = await storage.nextId('terms');
      const slug = t.slug ?? slugFrom(t.name, `term-${_id}`);
      const parent = t.parent ? (bySlug[taxonomy].get(t.parent) ?? 0) : 0;
      const doc: TermDoc = { _id, name: t.name, nameKey: t.name.toLowerCase(), slug, description: t.description ?? '', parent };
      await storage[taxonomy].insertOne(doc);
      bySlug[taxonomy].set(slug, _id);
    }
  }
  const post = { status: 'publish' as const, authorId: 0, dateUtc: now, modifiedUtc: now, description: '', excerpt: '', image: null };
  for (const v of await load<SeedVenue>('venues.json')) {
    const _id = await storage.nextId('posts');
    const located = v.geo_lat !== undefined && v.geo_lng !== undefined;
    const doc: VenueDoc = {
      ...post,
      _id,
      slug: v.slug ?? slugFrom(v.venue, `venue-${_id}`),
      name: v.venue,
      nameKey: v.venue.toLowerCase(),
      address: v.address ?? '',
      city: v.city ?? '',
      country: v.country ?? '',
      province: v.province ?? '',
      state: v.state ?? '',
      zip: v.zip ?? '',
      phone: v.phone ?? '',
      stateprovince: v.state ?? v.province ?? '',
      website: v.website ?? '',
      showMap: true,
      showMapLink: true,
      location: located ? { type: 'Point', coordinates: [v.geo_lng as number, v.geo_lat as number] } : null,
      geoSource: located ? 'provided' : null,
      searchTerms: searchTermsOf(v.venue, v.address, v.city, v.state, v.province, v.zip, v.phone),
    };
    await storage.venues.insertOne(doc);
    bySlug.venues.set(doc.slug, _id);
  }
  for (const o of await load<SeedOrganizer>('organizers.json')) {
    const _id = await storage.nextId('posts');
    const doc: OrganizerDoc = {
      ...post,
      _id,
      slug: o.slug ?? slugFrom(o.organizer, `organizer-${_id}`),
      name: o.organizer,
      nameKey: o.organizer.toLowerCase(),
      phone: o.phone ?? '',
      website: o.website ?? '',
      email: o.email ?? '',
      searchTerms: searchTermsOf(o.organizer, o.phone, o.email, o.website),
    };
    await storage.organizers.insertOne(doc);
    bySlug.organizers.set(doc.slug, _id);
  }

  const events = createEventsService({ storage, siteTimezone: config.siteTimezone });
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
      { role: 'editor', authorId: 0 },
    );
  }
  log.info(`seed: loaded ${seeded.length} events, ${bySlug.venues.size} venues, ${bySlug.organizers.size} organizers, ${bySlug.categories.size} categories, ${bySlug.tags.size} tags`);
}
