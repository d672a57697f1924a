/**
 * The one way route tests build the app: a fresh storage of the given engine, the
 * app on top of it through `buildApp`, and helpers to put linked records straight into storage
 * (the venue, organizer and term routes are not there yet).
 */
import { type FastifyInstance, type LightMyRequestResponse, type RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import {
  COLLECTION_NAMES,
  type CategoryDoc,
  type CollectionName,
  type OrganizerDoc,
  type Storage,
  type TagDoc,
  type VenueDoc,
} from '../../src/storage/port.js';
import { type EngineUnderTest } from './engines.js';
import { makeCategoryDoc, makeOrganizerDoc, makeTagDoc, makeVenueDoc } from './factories.js';

export const EDITOR_TOKEN = 'editor-token-0123456789abcdef';
export const VIEWER_TOKEN = 'viewer-token-0123456789abcdef';
/** The author id attached to the viewer token (`role:token:author`). */
export const VIEWER_AUTHOR_ID = 7;

export const EDITOR = { authorization: `Bearer ${EDITOR_TOKEN}` } as const;
export const VIEWER = { authorization: `Bearer ${VIEWER_TOKEN}` } as const;

/** Every path of the namespace begins with this (under the default root). */
/** The namespace and the language roots it is published under, with their languages. */
export const NS = 'calendar/events/v1';
export const ROOTS = [
  { root: '', language: 'en' },
  { root: '/en', language: 'en' },
  { root: '/de', language: 'de' },
  { root: '/fr', language: 'fr' },
] as const;
export const API = `/${NS}`;

/** Hosts whose names the route suites' links may carry (ALLOWED_HOSTS). */
export const TEST_HOSTS = [
  'localhost',
  '127.0.0.1',
  'calendar.example.org',
  'docs.example.org',
  'api.example.org',
  'inner',
  'public.example',
  'kalender.example.de',
  'cal.example.org',
  'calendar.example',
];

export interface TestApp {
  app: FastifyInstance;
  storage: Storage;
  close(): Promise<void>;
}

/** The configuration of the test apps: `env` on top of the helper's defaults. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    API_TOKENS: `editor:${EDITOR_TOKEN},viewer:${VIEWER_TOKEN}:${VIEWER_AUTHOR_ID}`,
    SITE_TIMEZONE: 'UTC',
    // Rate limits are off in tests unless a test turns them on.
    RATE_LIMIT_READS: '0',
    RATE_LIMIT_WRITES: '0',
    RATE_LIMIT_TOKEN_READS: '0',
    RATE_LIMIT_TOKEN_WRITES: '0',
    RATE_LIMIT_FAILED_AUTH: '0',
    // Load shedding is off in tests unless a test turns it on.
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // The hosts the route suites name to see links follow the request's host; a blank value
    // (ALLOWED_HOSTS: '') gives the product's default (test/routes/hosts.test.ts).
    ALLOWED_HOSTS: TEST_HOSTS.join(','),
    ...env,
  });
}

/**
 * The app on a fresh storage of `engine`; `onRoute` sees every route as it is registered; `now`
 * replaces the services' clock (buildApp's `now`).
 */
export async function openTestApp(
  engine: EngineUnderTest,
  env: Record<string, string> = {},
  onRoute?: (route: RouteOptions) => void,
  now?: () => Date,
): Promise<TestApp> {
  const config = testConfig(env);
  const storage = await engine.open();
  const app = buildApp({ config, storage, logger: false, now });
  if (onRoute) app.addHook('onRoute', onRoute);
  try {
    await app.ready();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return {
    app,
    storage,
    async close() {
      await app.close();
      await storage.close();
    },
  };
}

/**
 * the fields a list blanks on a password-protected event for a caller without its
 * password, with their blank values (add-on keys such as `ticketed` included); the rest is kept.
 */
export const REDACTED_IN_LISTS: Readonly<Record<string, unknown>> = {
  description: '',
  excerpt: '',
  image: false,
  all_day: null,
  cost: '',
  cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
  website: '',
  show_map: null,
  show_map_link: null,
  hide_from_listings: null,
  sticky: null,
  featured: null,
  categories: [],
  tags: [],
  venue: [],
  organizer: [],
  custom_fields: [],
  ticketed: null,
};

/** A valid create body; overrides replace or add fields (`undefined` removes one). */
export function makeEventInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: 'Harbour lights concert',
    start_date: '2030-06-10 19:00:00',
    end_date: '2030-06-10 21:30:00',
    ...overrides,
  };
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
  return body;
}

/** The JSON body of a response (fails loudly when it is not JSON). */
export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

/** POST /events as the editor; returns the response and its parsed body. */
export async function createEvent(
  app: FastifyInstance,
  overrides: Record<string, unknown> = {},
): Promise<{ response: LightMyRequestResponse; body: Record<string, unknown> }> {
  const response = await app.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput(overrides) });
  return { response, body: json(response) };
}

/** Creates an event and fails the test unless it was created; returns the body. */
export async function createEventOk(app: FastifyInstance, overrides: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const { response, body } = await createEvent(app, overrides);
  if (response.statusCode !== 201) throw new Error(`event create failed: ${response.statusCode} ${response.body}`);
  return body;
}

// Linked records go through storage with ids from the shared sequences, as the services assign them.

export async function insertVenue(storage: Storage, overrides: Partial<VenueDoc> = {}): Promise<VenueDoc> {
  const doc = makeVenueDoc({ _id: await storage.nextId('posts'), ...overrides });
  await storage.venues.insertOne(doc);
  return doc;
}

export async function insertOrganizer(storage: Storage, overrides: Partial<OrganizerDoc> = {}): Promise<OrganizerDoc> {
  const doc = makeOrganizerDoc({ _id: await storage.nextId('posts'), ...overrides });
  await storage.organizers.insertOne(doc);
  return doc;
}

export async function insertCategory(storage: Storage, overrides: Partial<CategoryDoc> = {}): Promise<CategoryDoc> {
  const doc = makeCategoryDoc({ _id: await storage.nextId('terms'), ...overrides });
  await storage.categories.insertOne(doc);
  return doc;
}

export async function insertTag(storage: Storage, overrides: Partial<TagDoc> = {}): Promise<TagDoc> {
  const doc = makeTagDoc({ _id: await storage.nextId('terms'), ...overrides });
  await storage.tags.insertOne(doc);
  return doc;
}

/** Number of documents in every collection, to show a rejected write changed nothing. */
export async function countAll(storage: Storage): Promise<Record<CollectionName, number>> {
  const entries = await Promise.all(COLLECTION_NAMES.map(async (name) => [name, await storage[name].count({})] as const));
  return Object.fromEntries(entries) as Record<CollectionName, number>;
}

/**
 * Everything the store holds, to show a rejected update changed nothing (not even one field).
 * `find` with an empty filter and an `_id` sort is supported by both engines.
 */
export async function snapshot(storage: Storage): Promise<Record<CollectionName, unknown[]>> {
  const entries = await Promise.all(COLLECTION_NAMES.map(async (name) => [name, await storage[name].find({ filter: {}, sort: [['_id', 1]] })] as const));
  return Object.fromEntries(entries) as Record<CollectionName, unknown[]>;
}
