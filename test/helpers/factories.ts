/**
 * Complete stored documents of the port's types for storage-level tests. Every factory fills
 * `searchTerms` from the fields the collection's text index covers, the way the
 * services do; overrides of those fields recompute it unless `searchTerms` itself is overridden.
 */
import { searchTermsOf } from '../../src/lib/text.js';
import {
  type CategoryDoc,
  type EventDoc,
  type GeoPoint,
  type OrganizerDoc,
  type SeriesDoc,
  type TagDoc,
  type TermDoc,
  type VenueDoc,
} from '../../src/storage/port.js';

let counter = 0;
/** Unique per call, so documents made without an explicit slug never collide on the unique indexes. */
function nextNumber(): number {
  counter += 1;
  return counter;
}

const BASE_DATE = new Date('2025-03-01T10:00:00.000Z');

export function point(lng: number, lat: number): GeoPoint {
  return { type: 'Point', coordinates: [lng, lat] };
}

export function makeEventDoc(overrides: Partial<EventDoc> = {}): EventDoc {
  const n = nextNumber();
  const base: Omit<EventDoc, 'searchTerms'> = {
    _id: 1000 + n,
    slug: `event-${n}`,
    status: 'publish',
    authorId: 1,
    dateUtc: BASE_DATE,
    modifiedUtc: BASE_DATE,
    title: `Spring concert ${n}`,
    description: '<p>An evening of chamber music in the old town hall.</p>',
    excerpt: 'Chamber music evening',
    image: null,
    startUtc: new Date('2025-04-10T18:00:00.000Z'),
    endUtc: new Date('2025-04-10T20:00:00.000Z'),
    timezone: 'Europe/Berlin',
    allDay: false,
    cost: ['15'],
    currencySymbol: '€',
    currencyPosition: 'postfix',
    website: null,
    showMap: true,
    showMapLink: true,
    hideFromListings: false,
    sticky: false,
    featured: false,
    ticketed: false,
    postParent: null,
    venueId: null,
    organizerIds: [],
    categoryIds: [],
    tagIds: [],
    password: null,
    ...overrides,
  };
  return {
    ...base,
    searchTerms: overrides.searchTerms ?? searchTermsOf(base.title, base.description, base.excerpt),
  };
}

/** A weekly series of ten Thursdays whose occurrences are all written. */
export function makeSeriesDoc(overrides: Partial<SeriesDoc> = {}): SeriesDoc {
  const { _id, slug, ...event } = makeEventDoc();
  return {
    ...event,
    _id: overrides._id ?? _id + 5000,
    slug: overrides.slug ?? `series-${slug}`,
    recurrence: { rrule: 'FREQ=WEEKLY;COUNT=10', exdates: [], rdates: [] },
    nextDate: null,
    ...overrides,
  };
}

export function makeVenueDoc(overrides: Partial<VenueDoc> = {}): VenueDoc {
  const n = nextNumber();
  const name = overrides.name ?? `Konzerthaus ${n}`;
  const base: Omit<VenueDoc, 'searchTerms'> = {
    _id: 2000 + n,
    slug: `venue-${n}`,
    status: 'publish',
    authorId: 1,
    dateUtc: BASE_DATE,
    modifiedUtc: BASE_DATE,
    description: 'A concert hall.',
    excerpt: '',
    image: null,
    name,
    nameKey: name.toLowerCase(),
    address: 'Gendarmenmarkt 1',
    city: 'Berlin',
    country: 'Germany',
    province: '',
    state: '',
    zip: '10117',
    phone: '+49 30 203090',
    stateprovince: '',
    website: 'https://www.konzerthaus.de',
    showMap: true,
    showMapLink: true,
    location: point(13.3918, 52.5136),
    geoSource: 'provided',
    ...overrides,
  };
  return {
    ...base,
    searchTerms:
      overrides.searchTerms ??
      searchTermsOf(base.name, base.description, base.address, base.city, base.province, base.state, base.stateprovince, base.zip, base.phone),
  };
}

export function makeOrganizerDoc(overrides: Partial<OrganizerDoc> = {}): OrganizerDoc {
  const n = nextNumber();
  const name = overrides.name ?? `Friends of Music ${n}`;
  const base: Omit<OrganizerDoc, 'searchTerms'> = {
    _id: 3000 + n,
    slug: `organizer-${n}`,
    status: 'publish',
    authorId: 1,
    dateUtc: BASE_DATE,
    modifiedUtc: BASE_DATE,
    description: 'A non-profit association organising concerts.',
    excerpt: '',
    image: null,
    name,
    nameKey: name.toLowerCase(),
    phone: '+49 30 1234567',
    website: 'https://friends-of-music.example',
    email: 'info@friends-of-music.example',
    ...overrides,
  };
  return {
    ...base,
    searchTerms: overrides.searchTerms ?? searchTermsOf(base.name, base.description, base.phone, base.email, base.website),
  };
}

export function makeTermDoc(overrides: Partial<TermDoc> = {}): TermDoc {
  const n = nextNumber();
  const name = overrides.name ?? `Classical ${n}`;
  return {
    _id: 4000 + n,
    name,
    nameKey: name.toLowerCase(),
    slug: `term-${n}`,
    description: '',
    parent: 0,
    ...overrides,
  };
}

export function makeCategoryDoc(overrides: Partial<CategoryDoc> = {}): CategoryDoc {
  return makeTermDoc(overrides);
}

export function makeTagDoc(overrides: Partial<TagDoc> = {}): TagDoc {
  return makeTermDoc({ parent: 0, ...overrides });
}
