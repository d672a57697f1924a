/**
 * Messages between the benchmark's parent (bench/run.ts) and its server process (bench/server.ts),
 * and the request mixes of each scenario.
 */
import { type CalendarFacts, randomGenerator } from './calendar.js';

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
}

export type ServerMessage =
  | { type: 'ready'; port: number; generatedMs: number; rss: number; facts: RequestFacts }
  | { type: 'rss'; peak: number; current: number };

export type ParentMessage = { type: 'rss' } | { type: 'stop' };

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
  };
}

export const SCENARIOS = ['default', 'window', 'category', 'venue', 'search', 'include'] as const;
export type Scenario = (typeof SCENARIOS)[number];

const DAY = 86_400_000;
const BASE = '/calendar/events/v1/events';

/**
 * At least `count` distinct request paths for a scenario: random pages (mostly the first ones,
 * as people page), random date windows, categories, venues, search words and include lists.
 */
export function scenarioUrls(scenario: Scenario, facts: RequestFacts, count = 1200, seed = 1): string[] {
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
    }
    return `${BASE}?${params.toString()}`;
  };
  for (let attempts = 0; urls.size < count && attempts < count * 20; attempts++) urls.add(make());
  return [...urls];
}
