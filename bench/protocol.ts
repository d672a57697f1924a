/**
 * Messages between the benchmark's parent (bench/run.ts) and its server process (bench/server.ts),
 * and the request mixes of each scenario.
 */
import { CITIES, type CalendarFacts, randomGenerator } from './calendar.js';

/** What the parent needs of a calendar to build requests (event ids sampled: a million do not need to cross). */
export interface RequestFacts {
  now: string;
  from: string;
  to: string;
  events: number;
  eventIds: number[];
  venueIds: number[];
  organizerIds: number[];
  categoryIds: number[];
  tagIds: number[];
  words: string[];
  /** Series and their occurrence events (bench/series.ts), besides the `events` single ones. */
  series: number;
  occurrences: number;
  /** Centres of the cities the venues are spread around (±0.3° longitude, ±0.2° latitude). */
  places: Array<{ lat: number; lng: number }>;
}

export type ServerMessage =
  | { type: 'ready'; port: number; generatedMs: number; rss: number; facts: RequestFacts }
  | { type: 'rss'; peak: number; heapAtPeak: number; current: number; loopDelayMaxMs: number; gcMs: number }
  | { type: 'settled'; collected: boolean };

/** `settle`: collect the heap's garbage now (when the process runs with --expose-gc) and answer `settled`. */
export type ParentMessage = { type: 'rss' } | { type: 'settle' } | { type: 'stop' };

/** The ceiling server (bench/ceiling-server.ts): the page to serve (base64) and its headers. */
export type CeilingParentMessage = { type: 'page'; body: string; headers: Record<string, string> } | { type: 'stop' };
export type CeilingMessage = { type: 'ready'; port: number };

export function sampleFacts(facts: CalendarFacts): RequestFacts {
  const random = randomGenerator(7);
  const eventIds = Array.from({ length: Math.min(5000, facts.eventIds.length) }, () => facts.eventIds[Math.floor(random() * facts.eventIds.length)]!);
  return {
    now: facts.now.toISOString(),
    from: facts.from.toISOString(),
    to: facts.to.toISOString(),
    events: facts.events,
    eventIds,
    venueIds: facts.venueIds,
    organizerIds: facts.organizerIds,
    categoryIds: facts.categoryIds,
    tagIds: facts.tagIds,
    words: facts.words,
    series: facts.seriesIds.length,
    occurrences: facts.occurrences,
    places: CITIES.map(({ lat, lng }) => ({ lat, lng })),
  };
}

/** Many distinct URLs each: served with the response cache off (bench/run.ts). */
export const COLD_SCENARIOS = ['default', 'window', 'category', 'venue', 'search', 'include', 'near'] as const;
/** The default list's first page again and again: `hot` plain, `revalidate` with the ETag of a first GET. */
export const HOT_SCENARIOS = ['hot', 'revalidate'] as const;
export const SCENARIOS = [...COLD_SCENARIOS, ...HOT_SCENARIOS] as const;
export type ColdScenario = (typeof COLD_SCENARIOS)[number];
export type Scenario = (typeof SCENARIOS)[number];

const DAY = 86_400_000;
/** The event list; without parameters, its default page (10 events, the first page). */
export const LIST_PATH = '/calendar/events/v1/events';
const BASE = LIST_PATH;

/**
 * At least `count` distinct request paths for a scenario: random pages (mostly the first ones,
 * as people page), random date windows, categories, venues, search words and include lists.
 */
export function scenarioUrls(scenario: ColdScenario, facts: RequestFacts, count = 1200, seed = 1): string[] {
  const random = randomGenerator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
  const from = Date.parse(facts.from);
  const to = Date.parse(facts.to);
  const now = Date.parse(facts.now);
  const urls = new Set<string>();
  const make = (): string => {
    const params = new URLSearchParams();
    switch (scenario) {
      case 'default':
        // Half with the default page size over 100 pages, half with other sizes over the first 20.
        if (random() < 0.5) params.set('page', String(1 + Math.floor(random() ** 2 * 100)));
        else {
          params.set('per_page', String(5 + Math.floor(random() * 46)));
          params.set('page', String(1 + Math.floor(random() ** 2 * 20)));
        }
        break;
      case 'window': {
        // Upcoming weeks mostly, some past and far-future windows.
        const start = random() < 0.7 ? now + random() * 180 * DAY : from + random() * (to - from - 60 * DAY);
        params.set('start_date', day(start));
        params.set('end_date', day(start + (7 + Math.floor(random() * 54)) * DAY));
        params.set('page', String(1 + Math.floor(random() * 2)));
        break;
      }
      case 'category':
        params.set('categories', String(pick(facts.categoryIds)));
        params.set('page', String(1 + Math.floor(random() ** 2 * 3)));
        if (random() < 0.5) params.set('per_page', String(10 + Math.floor(random() * 41)));
        break;
      case 'venue':
        params.set('venue', String(pick(facts.venueIds)));
        if (random() < 0.5) params.set('per_page', String(5 + Math.floor(random() * 46)));
        break;
      case 'search':
        if (random() < 0.7) {
          params.set('search', pick(facts.words));
          params.set('page', String(1 + Math.floor(random() * 2)));
        } else {
          params.set('search', `${pick(facts.words)} ${pick(facts.words)}`);
        }
        break;
      case 'include': {
        const ids = Array.from({ length: 1 + Math.floor(random() * 20) }, () => pick(facts.eventIds));
        params.set('include', ids.join(','));
        break;
      }
      case 'near': {
        // "Events near me" from a phone: a point somewhere in a city's venue area, a
        // radius of 10–50 km, nearest first; half of them for the next week only.
        const place = pick(facts.places);
        params.set('geoloc_lat', (place.lat + (random() - 0.5) * 0.4).toFixed(4));
        params.set('geoloc_lng', (place.lng + (random() - 0.5) * 0.6).toFixed(4));
        params.set('geoloc_radius', String(10 + Math.floor(random() * 41)));
        params.set('geoloc_unit', 'km');
        params.set('orderby', 'distance');
        if (random() < 0.5) {
          params.set('start_date', day(now));
          params.set('end_date', day(now + 7 * DAY));
          // eslint-disable-next-line no-dupe-else-if -- a second draw, not the same condition
        } else if (random() < 0.5) {
          params.set('page', String(2 + Math.floor(random() * 3)));
        }
        break;
      }
    }
    return `${BASE}?${params.toString()}`;
  };
  for (let attempts = 0; urls.size < count && attempts < count * 20; attempts++) urls.add(make());
  return [...urls];
}
