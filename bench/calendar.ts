/**
 * A synthetic but realistic calendar for the benchmarks, written straight into a storage through
 * the port's document types: events over three years (one year back, two ahead) with venues (one
 * per 50 events), organizers (one per 80), a two-level tree of 40 categories and 200 tags, titles
 * and descriptions from a small vocabulary so text search has hits. Deterministic for a seed.
 */
import { searchTermsOf } from '../src/lib/text.js';
import { generateSeries, type SeriesOptions } from './series.js';
import { type CategoryDoc, type EventDoc, type OrganizerDoc, type PostStatus, type Storage, type TagDoc, type VenueDoc } from '../src/storage/port.js';

export interface CalendarOptions {
  events: number;
  /** The instant the calendar is centred on (one year before, two after). */
  now: Date;
  seed?: number;
  /** Give every event the UTC zone instead of its venue's (isolates time-zone formatting costs). */
  utcZones?: boolean;
  /** Recurring events besides the single ones (bench/series.ts), written up to `horizonDays` ahead. */
  series?: SeriesOptions & { horizonDays: number };
}

/** What the load generator needs to build plausible requests. */
export interface CalendarFacts {
  now: Date;
  from: Date;
  to: Date;
  events: number;
  eventIds: number[];
  /** Published venues. */
  venueIds: number[];
  organizerIds: number[];
  rootCategoryIds: number[];
  categoryIds: number[];
  tagIds: number[];
  /** Words that occur in titles and descriptions. */
  words: string[];
  /** Series (none without `series`) and the occurrence events written for them. */
  seriesIds: number[];
  occurrences: number;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A small, fast, seedable PRNG (mulberry32). */
export function randomGenerator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const KINDS = [
  'concert',
  'festival',
  'workshop',
  'lecture',
  'exhibition',
  'market',
  'meetup',
  'screening',
  'reading',
  'tour',
  'tasting',
  'recital',
  'performance',
  'class',
  'conference',
  'fair',
  'party',
  'walk',
  'quiz',
  'session',
];
export const TOPICS = [
  'jazz',
  'blues',
  'classical',
  'folk',
  'rock',
  'opera',
  'poetry',
  'cinema',
  'photography',
  'pottery',
  'painting',
  'science',
  'history',
  'astronomy',
  'gardening',
  'cooking',
  'wine',
  'coffee',
  'chess',
  'yoga',
  'dance',
  'theatre',
  'comedy',
  'architecture',
  'design',
  'robotics',
  'literature',
  'philosophy',
  'cycling',
  'running',
  'birdwatching',
  'sculpture',
  'choir',
  'piano',
  'guitar',
  'violin',
  'electronic',
  'vintage',
  'crafts',
  'beer',
];
export const ADJECTIVES = [
  'spring',
  'summer',
  'autumn',
  'winter',
  'evening',
  'morning',
  'late-night',
  'family',
  'community',
  'open-air',
  'international',
  'local',
  'annual',
  'weekly',
  'monthly',
  'charity',
  'student',
  'grand',
  'intimate',
  'free',
];
export const SENTENCES = [
  'Join us for an unforgettable experience with friends and neighbours.',
  'Tickets are limited, so book early to secure your place.',
  'Refreshments will be served during the interval.',
  'Suitable for all ages; children must be accompanied by an adult.',
  'Our guest speakers bring decades of experience from around the world.',
  'The venue is accessible by public transport and has step-free access.',
  'Bring your own instruments and ideas for the open session.',
  'A relaxed atmosphere with plenty of time for questions and conversation.',
  'Local artists and makers present their newest work.',
  'The programme changes every season, so come back often.',
];
export const CITIES: Array<{ city: string; country: string; lat: number; lng: number; tz: string }> = [
  { city: 'Berlin', country: 'Germany', lat: 52.52, lng: 13.405, tz: 'Europe/Berlin' },
  { city: 'Hamburg', country: 'Germany', lat: 53.55, lng: 9.993, tz: 'Europe/Berlin' },
  { city: 'Paris', country: 'France', lat: 48.857, lng: 2.352, tz: 'Europe/Paris' },
  { city: 'Lyon', country: 'France', lat: 45.764, lng: 4.836, tz: 'Europe/Paris' },
  { city: 'London', country: 'United Kingdom', lat: 51.507, lng: -0.128, tz: 'Europe/London' },
  { city: 'New York', country: 'United States', lat: 40.713, lng: -74.006, tz: 'America/New_York' },
  { city: 'Chicago', country: 'United States', lat: 41.878, lng: -87.63, tz: 'America/Chicago' },
  { city: 'Toronto', country: 'Canada', lat: 43.653, lng: -79.383, tz: 'America/Toronto' },
];
const VENUE_KINDS = ['Hall', 'Theatre', 'Club', 'Gallery', 'Library', 'Park', 'Studio', 'Church', 'Arena', 'Café'];
const STREETS = ['Main Street', 'Market Square', 'River Road', 'Station Avenue', 'Church Lane', 'Park Row', 'High Street'];

/** Generates the calendar into `storage` (insert first, then `ensureIndexes` builds every index in one sort each). */
export async function generateCalendar(storage: Storage, options: CalendarOptions): Promise<CalendarFacts> {
  const random = randomGenerator(options.seed ?? 42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  /** Popular items first: a rough Zipf distribution over the list. */
  const pickSkewed = <T>(items: readonly T[]): T => items[Math.floor(items.length * random() ** 2)]!;
  const now = options.now;
  const from = new Date(now.getTime() - 365 * DAY);
  const to = new Date(now.getTime() + 2 * 365 * DAY);
  const base = { authorId: 1, dateUtc: from, modifiedUtc: from, excerpt: '', image: null };

  const categoryIds: number[] = [];
  const rootCategoryIds: number[] = [];
  const topics = [...TOPICS];
  for (let r = 0; r < 8; r++) {
    const id = await storage.nextId('terms');
    const name = `${KINDS[r]!.replace(/^./, (c) => c.toUpperCase())}s`;
    const root: CategoryDoc = { _id: id, name, nameKey: name.toLowerCase(), slug: name.toLowerCase(), description: '', parent: 0 };
    await storage.categories.insertOne(root);
    rootCategoryIds.push(id);
    categoryIds.push(id);
    for (let c = 0; c < 4; c++) {
      const childId = await storage.nextId('terms');
      const topic = topics[(r * 4 + c) % topics.length]!;
      const childName = `${topic} ${name}`.replace(/^./, (ch) => ch.toUpperCase());
      await storage.categories.insertOne({
        _id: childId,
        name: childName,
        nameKey: childName.toLowerCase(),
        slug: childName.toLowerCase().replaceAll(' ', '-'),
        description: '',
        parent: id,
      });
      categoryIds.push(childId);
    }
  }
  const tagIds: number[] = [];
  for (let t = 0; t < 200; t++) {
    const id = await storage.nextId('terms');
    const name = `${pick(ADJECTIVES)} ${TOPICS[t % TOPICS.length]} ${t}`;
    const tag: TagDoc = { _id: id, name, nameKey: name.toLowerCase(), slug: name.toLowerCase().replaceAll(' ', '-'), description: '', parent: 0 };
    await storage.tags.insertOne(tag);
    tagIds.push(id);
  }

  const venueCount = Math.max(1, Math.round(options.events / 50));
  const venueIds: number[] = [];
  const allVenueIds: number[] = [];
  const venueZones = new Map<number, string>();
  for (let v = 0; v < venueCount; v++) {
    const id = await storage.nextId('posts');
    const place = pick(CITIES);
    const name = `${pick(TOPICS).replace(/^./, (c) => c.toUpperCase())} ${pick(VENUE_KINDS)} ${v + 1}`;
    const located = random() < 0.9;
    const venue: VenueDoc = {
      ...base,
      _id: id,
      slug: `venue-${v + 1}`,
      status: random() < 0.97 ? 'publish' : 'draft',
      description: pick(SENTENCES),
      searchTerms: [],
      name,
      nameKey: name.toLowerCase(),
      address: `${1 + Math.floor(random() * 200)} ${pick(STREETS)}`,
      city: place.city,
      country: place.country,
      province: '',
      state: '',
      zip: String(10000 + Math.floor(random() * 89999)),
      phone: `+1 555 ${String(Math.floor(random() * 10000)).padStart(4, '0')}`,
      stateprovince: '',
      website: '',
      showMap: true,
      showMapLink: true,
      location: located ? { type: 'Point', coordinates: [place.lng + (random() - 0.5) * 0.6, place.lat + (random() - 0.5) * 0.4] } : null,
      geoSource: located ? 'provided' : null,
    };
    venue.searchTerms = searchTermsOf(venue.name, venue.description, venue.address, venue.city, venue.zip, venue.phone);
    await storage.venues.insertOne(venue);
    // Requests name published venues (a draft venue is not found for anonymous callers).
    if (venue.status === 'publish') venueIds.push(id);
    venueZones.set(id, place.tz);
    allVenueIds.push(id);
  }

  const organizerCount = Math.max(1, Math.round(options.events / 80));
  const organizerIds: number[] = [];
  for (let o = 0; o < organizerCount; o++) {
    const id = await storage.nextId('posts');
    const name = `${pick(ADJECTIVES).replace(/^./, (c) => c.toUpperCase())} ${pick(TOPICS)} society ${o + 1}`;
    const organizer: OrganizerDoc = {
      ...base,
      _id: id,
      slug: `organizer-${o + 1}`,
      status: 'publish',
      description: pick(SENTENCES),
      searchTerms: [],
      name,
      nameKey: name.toLowerCase(),
      phone: '',
      website: `https://organizer-${o + 1}.example`,
      email: `hello@organizer-${o + 1}.example`,
    };
    organizer.searchTerms = searchTermsOf(organizer.name, organizer.description, organizer.phone, organizer.email, organizer.website);
    await storage.organizers.insertOne(organizer);
    organizerIds.push(id);
  }

  const eventIds: number[] = [];
  const span = to.getTime() - from.getTime();
  for (let e = 0; e < options.events; e++) {
    const id = await storage.nextId('posts');
    const kind = pickSkewed(KINDS);
    const topic = pickSkewed(TOPICS);
    const title = `${pick(ADJECTIVES)} ${topic} ${kind}`.replace(/^./, (c) => c.toUpperCase());
    const allDay = random() < 0.1;
    // Starts on the quarter hour; most events last hours, a few run for days.
    const startMs = from.getTime() + Math.floor((random() * span) / (15 * 60_000)) * 15 * 60_000;
    const roll = random();
    const durationMs = allDay ? DAY - 1000 : roll < 0.97 ? (1 + Math.floor(random() * 4)) * HOUR : (1 + Math.floor(random() * 7)) * DAY;
    const statusRoll = random();
    const status: PostStatus =
      statusRoll < 0.95 ? 'publish' : statusRoll < 0.97 ? 'draft' : statusRoll < 0.98 ? 'pending' : statusRoll < 0.99 ? 'private' : 'future';
    const venueId = random() < 0.9 ? pick(allVenueIds) : null;
    const organizers = new Set<number>();
    for (let k = Math.floor(random() * 3); k > 0; k--) organizers.add(pick(organizerIds));
    const categories = new Set<number>();
    for (let k = 1 + Math.floor(random() * 3); k > 0; k--) categories.add(pickSkewed(categoryIds));
    const tags = new Set<number>();
    for (let k = Math.floor(random() * 5); k > 0; k--) tags.add(pickSkewed(tagIds));
    const description = `<p>${pick(SENTENCES)} ${title} with ${pick(TOPICS)} and ${pick(TOPICS)}. ${pick(SENTENCES)}</p>`;
    const excerpt = `${pick(ADJECTIVES)} ${topic}`;
    const published = status === 'future' ? new Date(now.getTime() + (1 + random() * 60) * DAY) : new Date(startMs - 30 * DAY);
    const event: EventDoc = {
      ...base,
      _id: id,
      slug: `event-${e + 1}`,
      status,
      dateUtc: published,
      modifiedUtc: published,
      description,
      excerpt,
      searchTerms: searchTermsOf(title, description, excerpt),
      title,
      startUtc: new Date(startMs),
      endUtc: new Date(startMs + durationMs),
      timezone: venueId === null || options.utcZones === true ? 'UTC' : venueZones.get(venueId)!,
      allDay,
      cost: random() < 0.5 ? [] : [String(5 * (1 + Math.floor(random() * 10)))],
      currencySymbol: '$',
      currencyPosition: 'prefix',
      website: null,
      showMap: true,
      showMapLink: true,
      hideFromListings: random() < 0.01,
      sticky: random() < 0.01,
      featured: random() < 0.05,
      ticketed: random() < 0.3,
      postParent: null,
      venueId,
      organizerIds: [...organizers],
      categoryIds: [...categories],
      tagIds: [...tags],
      password: null,
    };
    await storage.events.insertOne(event);
    eventIds.push(id);
  }
  // Series after the single events, from a generator of their own: the single events (and the
  // requests built from them) are the same with and without series.
  const series = options.series
    ? await generateSeries(storage, {
        series: options.series,
        horizonDays: options.series.horizonDays,
        now,
        from,
        to,
        random: randomGenerator((options.seed ?? 42) + 1),
        venues: allVenueIds.map((id) => ({ id, timezone: venueZones.get(id)! })),
        organizerIds,
        categoryIds,
        tagIds,
        words: { kinds: KINDS, topics: TOPICS, adjectives: ADJECTIVES, sentences: SENTENCES },
        utcZones: options.utcZones === true,
      })
    : { seriesIds: [], occurrences: 0 };
  await storage.ensureIndexes();
  return {
    now,
    from,
    to,
    events: options.events,
    eventIds,
    venueIds,
    organizerIds,
    rootCategoryIds,
    categoryIds,
    tagIds,
    words: [...KINDS, ...TOPICS],
    seriesIds: series.seriesIds,
    occurrences: series.occurrences,
  };
}
