/**
 * The service graph, built in one place for the API (src/app.ts) and the import (the seed
 * command): both then read and write through the same services, wired the same way. Events link
 * venues, organizers, categories and tags, so those are built first and handed to the events
 * service.
 */
import { type Config } from '../config.js';
import { type Storage } from '../storage/port.js';
import { createEventsService, type EventsService } from './events/index.js';
import { createOrganizersService, type OrganizersService } from './organizers.js';
import { createTermsService, type TermsService } from './terms.js';
import { createTombstones, type Tombstones } from './tombstones.js';
import { createVenuesService, type VenuesService } from './venues.js';

export interface ServicesDeps {
  storage: Storage;
  /** GEOLOC_ENABLED left out: on (the event list's geolocation parameters take effect); ICS_MAX_EVENTS: see the events service. */
  config: Pick<Config, 'siteTimezone' | 'perPageMax'> &
    Partial<Pick<Config, 'geolocEnabled' | 'tombstoneDays' | 'icsMaxEvents' | 'recurrenceHorizonDays' | 'recurrenceMaxOccurrences'>>;
  /** The services' clock; the system clock when absent. */
  now?: (() => Date) | undefined;
  /** Where a failed background pruning of tombstones is reported. */
  onPruneError?: (error: unknown) => void;
}

export interface Services {
  events: EventsService;
  venues: VenuesService;
  organizers: OrganizersService;
  categories: TermsService;
  tags: TermsService;
  /** Records that left the lists, for incremental sync (GET /deleted). */
  tombstones: Tombstones;
}

/** TOMBSTONE_DAYS left out: its default. */
const DEFAULT_TOMBSTONE_DAYS = 30;

export function createServices({ storage, config, now, onPruneError }: ServicesDeps): Services {
  const {
    siteTimezone,
    perPageMax,
    geolocEnabled,
    icsMaxEvents,
    tombstoneDays = DEFAULT_TOMBSTONE_DAYS,
    recurrenceHorizonDays,
    recurrenceMaxOccurrences,
  } = config;
  const tombstones = createTombstones({ storage, retentionDays: tombstoneDays, siteTimezone, perPageMax, now, onPruneError });
  const venues = createVenuesService({ storage, siteTimezone, perPageMax, tombstones, now });
  const organizers = createOrganizersService({ storage, siteTimezone, perPageMax, tombstones, now });
  const categories = createTermsService('categories', { storage, perPageMax, tombstones, now });
  const tags = createTermsService('tags', { storage, perPageMax, tombstones, now });
  const events = createEventsService({
    storage,
    siteTimezone,
    perPageMax,
    feedMax: icsMaxEvents,
    geolocEnabled,
    venues,
    organizers,
    categories,
    tags,
    tombstones,
    recurrenceHorizonDays,
    recurrenceMaxOccurrences,
    now,
  });
  return { events, venues, organizers, categories, tags, tombstones };
}
