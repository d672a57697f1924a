/**
 * The authorization matrix: every route × method of the API × caller (anonymous, viewer,
 * editor, and three malformed Authorization headers) × target (published, draft, pending, private,
 * scheduled, due, trashed, password-protected, missing), each answered with the exact status and
 * error code the rules give.
 *
 * Every record an anonymous caller may not see carries the marker `s3cr3t` (title, description,
 * name, slug), and every field a password hides carries `pr0tect3d`. Each anonymous answer is
 * scanned for them (body and headers); no answer to anybody carries a password or a token.
 *
 * Order inside the one test: reads on a shared fixture, then refused writes on the same fixture
 * (the store must be unchanged afterwards), then the editor's writes, each on a record of its own.
 */
import { type HTTPMethods, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type PostStatus } from '../../src/storage/port.js';
import {
  API,
  EDITOR,
  EDITOR_TOKEN,
  type TestApp,
  VIEWER_TOKEN,
  insertCategory,
  insertOrganizer,
  insertTag,
  insertVenue,
  json,
  makeEventInput,
  openTestApp,
  REDACTED_IN_LISTS,
  snapshot,
} from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';
import { makeEventDoc } from '../helpers/factories.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;

/** Marks what anonymous callers must never see. */
const SECRET = 's3cr3t';
/** Marks the fields a password hides. */
const PROTECTED = 'pr0tect3d';
const PASSWORD = 'Lantern-pw-7d41c0e9';
const DRAFT_PASSWORD = 'Harbour-pw-2b98f1aa';
const WRONG_TOKEN = `${EDITOR_TOKEN.slice(0, -1)}X`;
const NEVER_IN_ANY_RESPONSE = [PASSWORD, DRAFT_PASSWORD, EDITOR_TOKEN, VIEWER_TOKEN, WRONG_TOKEN];

const CALLERS = {
  anonymous: {},
  viewer: { authorization: `Bearer ${VIEWER_TOKEN}` },
  editor: { authorization: `Bearer ${EDITOR_TOKEN}` },
  'bearer-without-token': { authorization: 'Bearer' },
  'basic-scheme': { authorization: 'Basic abc' },
  'wrong-token': { authorization: `Bearer ${WRONG_TOKEN}` },
} as const satisfies Record<string, Record<string, string>>;
type CallerName = keyof typeof CALLERS;
type Reader = 'anonymous' | 'viewer' | 'editor';
const CALLER_NAMES = Object.keys(CALLERS) as CallerName[];
const MALFORMED: readonly CallerName[] = ['bearer-without-token', 'basic-scheme', 'wrong-token'];
/** Callers whose answers are scanned for the markers: they hold no valid token. */
const ANONYMOUS_LIKE: readonly CallerName[] = ['anonymous', ...MALFORMED];

interface Expect {
  status: number;
  code?: string;
}
const ok: Expect = { status: 200 };
const created: Expect = { status: 201 };
const err = (status: number, code: string): Expect => ({ status, code });
const UNAUTHENTICATED = err(401, 'rest_forbidden');
const NOT_ALLOWED = err(403, 'rest_forbidden');
const INVALID = err(400, 'rest_invalid_param');
const same = (e: Expect): Record<Reader, Expect> => ({ anonymous: e, viewer: e, editor: e });
const tokenOnly = (anonymous: Expect): Record<Reader, Expect> => ({ anonymous, viewer: ok, editor: ok });

// ── The rules, as tables ────────────────────────────────────────────────────────────────────────

type EventTarget = 'published' | 'draft' | 'pending' | 'private' | 'scheduled' | 'due' | 'trashed' | 'protected' | 'protectedDraft' | 'missing';
type PostTarget = 'published' | 'draft' | 'pending' | 'private' | 'scheduled' | 'due' | 'trashed' | 'missing';
type ReadVariant = 'plain' | 'password' | 'wrong-password' | 'context-edit';

const notAccessible = err(403, 'event-not-accessible');
const passwordProtected = err(403, 'event-password-protected');

/** Single event reads: by id and by slug alike. */
const EVENT_READ: Record<EventTarget, Partial<Record<ReadVariant, Record<Reader, Expect>>>> = {
  published: { plain: same(ok) },
  draft: { plain: tokenOnly(notAccessible) },
  pending: { plain: tokenOnly(notAccessible) },
  private: { plain: tokenOnly(notAccessible) },
  scheduled: { plain: tokenOnly(notAccessible) },
  // `future` whose date has passed: published at read time, without any job.
  due: { plain: same(ok) },
  // Trash is gone for everybody, editors included.
  trashed: { plain: same(err(403, 'event-no-longer-available')), password: same(err(403, 'event-no-longer-available')) },
  protected: {
    plain: same(passwordProtected),
    password: same(ok),
    'wrong-password': same(passwordProtected),
    'context-edit': { anonymous: passwordProtected, viewer: passwordProtected, editor: ok },
  },
  // Visibility comes before the password: the right password does not open a draft to anonymous callers.
  protectedDraft: {
    plain: { anonymous: notAccessible, viewer: passwordProtected, editor: passwordProtected },
    password: { anonymous: notAccessible, viewer: ok, editor: ok },
    'wrong-password': { anonymous: notAccessible, viewer: passwordProtected, editor: passwordProtected },
    'context-edit': { anonymous: notAccessible, viewer: passwordProtected, editor: ok },
  },
  missing: { plain: same(err(404, 'rest-event-not-found')) },
};

/** Single venue/organizer reads (trashed → 403 anonymous, 200 with a token). */
const postRead = (kind: 'venue' | 'organizer'): Record<PostTarget, Record<Reader, Expect>> => {
  const hidden = tokenOnly(err(403, `${kind}-not-accessible`));
  return {
    published: same(ok),
    due: same(ok),
    draft: hidden,
    pending: hidden,
    private: hidden,
    scheduled: hidden,
    trashed: hidden,
    missing: same(err(404, `rest-${kind}-not-found`)),
  };
};

/** What the editor's writes answer, per target. */
type WriteTarget = 'published' | 'draft' | 'trashed' | 'protected' | 'missing';
const EVENT_WRITE: Record<'update' | 'delete', Partial<Record<WriteTarget, Expect>>> = {
  update: { published: ok, draft: ok, trashed: ok, protected: ok, missing: err(404, 'rest-event-not-found') },
  delete: { published: ok, draft: ok, trashed: err(410, 'event-is-in-trash'), protected: ok, missing: err(404, 'rest-event-not-found') },
};
const postWrite = (kind: 'venue' | 'organizer'): Record<'update' | 'delete', Partial<Record<WriteTarget, Expect>>> => ({
  update: { published: ok, draft: ok, trashed: ok, missing: err(404, `rest-${kind}-not-found`) },
  delete: { published: ok, draft: ok, trashed: err(410, `${kind}-is-in-trash`), missing: err(404, `rest-${kind}-not-found`) },
});
const termWrite = (kind: 'category' | 'tag'): Record<'update' | 'delete', Partial<Record<WriteTarget, Expect>>> => ({
  update: { published: ok, missing: err(404, `rest-${kind}-not-found`) },
  delete: { published: ok, missing: err(404, `rest-${kind}-not-found`) },
});

/** Anonymous callers get 401 before validation, viewers 403, malformed headers 401. */
function refusedWrite(caller: CallerName): Expect | null {
  if (caller === 'editor') return null;
  return caller === 'viewer' ? NOT_ALLOWED : UNAUTHENTICATED;
}

// ── Fixture ────────────────────────────────────────────────────────────────────────────────────

const DAY = 86_400_000;
const wall = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');
const seconds = (instant: Date) => Math.floor(instant.getTime() / 1000);
const inDays = (days: number) => new Date(Date.now() + days * DAY);
const MISSING_ID = 987_654;

interface Ref {
  id: number;
  slug: string;
}

interface Fixture {
  events: Record<Exclude<EventTarget, 'missing'> | 'linkedDraft' | 'linkedScheduled', Ref>;
  venues: Record<Exclude<PostTarget, 'missing'>, Ref>;
  organizers: Record<Exclude<PostTarget, 'missing'>, Ref>;
  /** Recurring series starting beyond the horizon: no occurrence is written, the lists are unchanged. */
  series: Record<'published' | 'draft', Ref>;
  category: Ref;
  tag: Ref;
  /** Each event's links as stored: venue id (or null) and organizer ids in order. */
  links: Map<number, { venue: number | null; organizers: number[] }>;
  publicVenueIds: Set<number>;
  publicOrganizerIds: Set<number>;
}

const POST_STATUS_OF: Record<Exclude<PostTarget, 'missing'>, { status: PostStatus; dateUtc?: Date }> = {
  published: { status: 'publish' },
  draft: { status: 'draft' },
  pending: { status: 'pending' },
  private: { status: 'private' },
  scheduled: { status: 'future', dateUtc: new Date(Date.now() + 365 * DAY) },
  due: { status: 'future', dateUtc: new Date('2020-01-01T00:00:00Z') },
  trashed: { status: 'trash' },
};
const PUBLIC_POST_TARGETS = new Set<string>(['published', 'due']);

async function buildFixture(t: TestApp): Promise<Fixture> {
  const editor = async (method: HTTPMethods, url: string, payload?: unknown) => {
    const response = await t.app.inject({ method, url: `${API}${url}`, headers: EDITOR, ...(payload === undefined ? {} : { payload: payload as Body }) });
    if (response.statusCode >= 300) throw new Error(`fixture ${method} ${url} failed: ${response.statusCode} ${response.body}`);
    return json(response);
  };

  const posts = async (insert: typeof insertVenue | typeof insertOrganizer, kind: 'venue' | 'organizer') => {
    const out = {} as Fixture['venues'];
    for (const [target, { status, dateUtc }] of Object.entries(POST_STATUS_OF) as Array<[Exclude<PostTarget, 'missing'>, (typeof POST_STATUS_OF)['draft']]>) {
      const visible = PUBLIC_POST_TARGETS.has(target);
      const label = visible ? `${target} ${kind}` : `${SECRET} ${target} ${kind}`;
      const doc = await insert(t.storage, {
        name: `Matrix ${label}`,
        nameKey: `matrix ${label}`.toLowerCase(),
        slug: `matrix-${label.replaceAll(' ', '-')}`,
        description: visible ? `A ${target} ${kind}.` : `Hidden ${SECRET} ${target} ${kind} notes.`,
        status,
        ...(dateUtc ? { dateUtc } : {}),
      });
      out[target] = { id: doc._id, slug: doc.slug };
    }
    return out;
  };
  const venues = await posts(insertVenue, 'venue');
  const organizers = await posts(insertOrganizer, 'organizer');
  const category = await insertCategory(t.storage, { name: 'Matrix music', nameKey: 'matrix music', slug: 'matrix-music' });
  const tag = await insertTag(t.storage, { name: 'Matrix outdoor', nameKey: 'matrix outdoor', slug: 'matrix-outdoor' });

  const links = new Map<number, { venue: number | null; organizers: number[] }>();
  let day = 3;
  const event = async (slug: string, fields: Body): Promise<Ref> => {
    day += 1;
    const body = await editor(
      'POST',
      '/events',
      makeEventInput({ slug, start_date: wall(inDays(day)), end_date: wall(new Date(inDays(day).getTime() + 2 * 3_600_000)), ...fields }),
    );
    const ref = { id: body.id as number, slug: body.slug as string };
    if (ref.slug !== slug) throw new Error(`fixture slug ${slug} became ${ref.slug}`);
    links.set(ref.id, {
      venue: (fields.venue as number | undefined) ?? null,
      organizers: (fields.organizer as number[] | undefined) ?? [],
    });
    return ref;
  };
  const hidden = (label: string) => ({
    title: `Hidden ${SECRET} ${label} event`,
    description: `Only for token holders: ${SECRET} ${label} description.`,
    excerpt: `${SECRET} ${label} excerpt`,
  });
  const publicLinks = { venue: venues.published.id, organizer: [organizers.published.id], categories: [category._id], tags: [tag._id] };

  const events = {
    published: await event('matrix-published', { title: 'Matrix published event', ...publicLinks }),
    draft: await event(`${SECRET}-draft`, { ...hidden('draft'), status: 'draft', ...publicLinks }),
    pending: await event(`${SECRET}-pending`, { ...hidden('pending'), status: 'pending' }),
    private: await event(`${SECRET}-private`, { ...hidden('private'), status: 'private' }),
    scheduled: await event(`${SECRET}-scheduled`, { ...hidden('scheduled'), status: 'future', date_utc: seconds(inDays(365)) }),
    due: await event('matrix-due', { title: 'Matrix due event', status: 'future', date_utc: seconds(new Date('2020-01-01T00:00:00Z')) }),
    trashed: await event(`${SECRET}-trashed`, { ...hidden('trashed') }),
    protected: await event('matrix-protected', {
      title: 'Matrix protected gala',
      description: `The ${PROTECTED} programme of the evening.`,
      excerpt: `${PROTECTED} excerpt`,
      website: `https://${PROTECTED}.example/gala`,
      image: `https://images.example/${PROTECTED}.jpg`,
      cost: '4711',
      featured: true,
      ...publicLinks,
    }),
    protectedDraft: await event(`${SECRET}-protected-draft`, { ...hidden('protected-draft'), status: 'draft', ...publicLinks }),
    linkedDraft: await event('matrix-linked-draft', {
      title: 'Matrix event at a draft venue',
      venue: venues.draft.id,
      organizer: [organizers.draft.id, organizers.published.id],
    }),
    linkedScheduled: await event('matrix-linked-scheduled', {
      title: 'Matrix event at a scheduled venue',
      venue: venues.scheduled.id,
      organizer: [organizers.private.id, organizers.due.id, organizers.pending.id, organizers.trashed.id],
    }),
  };
  const seriesOf = async (slug: string, fields: Body): Promise<Ref> => {
    const start = inDays(3 * 365);
    const body = await editor(
      'POST',
      '/events',
      makeEventInput({
        slug,
        start_date: wall(start),
        end_date: wall(new Date(start.getTime() + 3_600_000)),
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3' },
        ...fields,
      }),
    );
    links.set(body.id as number, { venue: (fields.venue as number | undefined) ?? null, organizers: (fields.organizer as number[] | undefined) ?? [] });
    return { id: body.id as number, slug: body.slug as string };
  };
  const series = {
    published: await seriesOf('matrix-series', { title: 'Matrix weekly series', ...publicLinks }),
    draft: await seriesOf(`${SECRET}-series`, { ...hidden('series'), status: 'draft' }),
  };
  await editor('DELETE', `/events/${events.trashed.id}`);
  await editor('PATCH', `/events/${events.protected.id}`, { password: PASSWORD });
  await editor('PATCH', `/events/${events.protectedDraft.id}`, { password: DRAFT_PASSWORD });

  const publicIds = (refs: Fixture['venues']) =>
    new Set(
      Object.entries(refs)
        .filter(([target]) => PUBLIC_POST_TARGETS.has(target))
        .map(([, ref]) => ref.id),
    );
  return {
    events,
    series,
    venues,
    organizers,
    category: { id: category._id, slug: category.slug },
    tag: { id: tag._id, slug: tag.slug },
    links,
    publicVenueIds: publicIds(venues),
    publicOrganizerIds: publicIds(organizers),
  };
}

// ── What an answer may contain ─────────────────────────────────────────────────────────────────

/** Every event object anywhere in a body. */
function eventsIn(value: unknown, out: Body[] = []): Body[] {
  if (Array.isArray(value)) for (const item of value) eventsIn(item, out);
  else if (value !== null && typeof value === 'object') {
    const object = value as Body;
    if ('start_date' in object && 'global_id' in object && 'title' in object) out.push(object);
    for (const child of Object.values(object)) eventsIn(child, out);
  }
  return out;
}

function keysNamed(value: unknown, name: string, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => keysNamed(item, name, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Body).flatMap(([key, child]) => [...(key === name ? [`${path}.${key}`] : []), ...keysNamed(child, name, `${path}.${key}`)]);
}

interface RowContext {
  fx: Fixture;
  caller: CallerName;
  /** Protected events the request unlocks: it carries their password, or is an editor's `context=edit`. */
  unlocked: readonly number[];
  isList: boolean;
  /** The namespace index or /doc: documentation, no records. */
  describesApi: boolean;
}

/** Checks every answer: secrets, markers, redaction, embedded visibility. Returns the problems. */
function inspect(response: LightMyRequestResponse, ctx: RowContext): string[] {
  const problems: string[] = [];
  const text = `${response.body}\n${JSON.stringify(response.headers)}`;
  for (const secret of NEVER_IN_ANY_RESPONSE) if (text.includes(secret)) problems.push(`carries the secret "${secret}"`);
  const anonymous = ANONYMOUS_LIKE.includes(ctx.caller);
  const lower = text.toLowerCase();
  if (anonymous && lower.includes(SECRET))
    problems.push(`shows a non-public record: …${lower.slice(Math.max(0, lower.indexOf(SECRET) - 80), lower.indexOf(SECRET) + 40)}…`);
  if (anonymous && !ctx.unlocked.includes(ctx.fx.events.protected.id) && lower.includes(PROTECTED)) problems.push('shows a field the password hides');
  if (response.body === '' || !response.headers['content-type']?.toString().includes('json')) return problems;

  const body = JSON.parse(response.body) as unknown;
  // The index and /doc describe the `password` parameter; records never carry one.
  const passwordKeys = ctx.describesApi ? [] : keysNamed(body, 'password');
  if (passwordKeys.length > 0) problems.push(`has password keys at ${passwordKeys.join(', ')}`);

  const { fx } = ctx;
  const reader = anonymous ? 'anonymous' : ctx.caller;
  for (const event of eventsIn(body)) {
    const id = event.id as number;
    const isProtected = id === fx.events.protected.id || id === fx.events.protectedDraft.id;
    // A protected event in a list is redacted unless the request unlocks it.
    if (isProtected && ctx.isList && !ctx.unlocked.includes(id)) {
      for (const [field, blank] of Object.entries(REDACTED_IN_LISTS)) {
        if (JSON.stringify(event[field]) !== JSON.stringify(blank))
          problems.push(`protected event ${id}: ${field} is ${JSON.stringify(event[field])}, not redacted`);
      }
      continue;
    }
    const stored = fx.links.get(id);
    if (!stored) continue;
    // Embedded venues and organizers follow their own visibility.
    const visibleVenue = (v: number | null) => v !== null && (reader !== 'anonymous' || fx.publicVenueIds.has(v));
    const wantVenue = visibleVenue(stored.venue) ? stored.venue : null;
    const gotVenue = Array.isArray(event.venue) ? null : ((event.venue as Body).id as number);
    if (gotVenue !== wantVenue) problems.push(`event ${id}: embeds venue ${String(gotVenue)}, expected ${String(wantVenue)}`);
    const wantOrganizers = stored.organizers.filter((o) => reader !== 'anonymous' || fx.publicOrganizerIds.has(o));
    const gotOrganizers = (event.organizer as Body[]).map((o) => o.id as number);
    if (JSON.stringify(gotOrganizers) !== JSON.stringify(wantOrganizers)) {
      problems.push(`event ${id}: embeds organizers ${JSON.stringify(gotOrganizers)}, expected ${JSON.stringify(wantOrganizers)}`);
    }
  }
  return problems;
}

// ── The table ──────────────────────────────────────────────────────────────────────────────────

interface Row {
  /** `METHOD /pattern`, for the coverage check. */
  route: string;
  label: string;
  method: HTTPMethods;
  caller: CallerName;
  /** The URL, or a function making the row's own record first (editor writes). */
  url: string | (() => Promise<string>);
  payload?: Body;
  expect: Expect;
  unlocked?: readonly number[];
  isList?: boolean;
  /** Extra checks on a 200 body (list contents). */
  check?: (body: Body) => string[];
  /** The same for an iCalendar body. */
  checkText?: (text: string) => string[];
  phase: 'read' | 'refused-write' | 'editor-write';
}

const READ_METHODS: HTTPMethods[] = ['GET', 'HEAD'];
const UPDATE_METHODS: HTTPMethods[] = ['POST', 'PUT', 'PATCH'];
const ids = (items: unknown) => (items as Body[]).map((item) => item.id as number).sort((a, b) => a - b);
const sorted = (values: Iterable<number>) => [...values].sort((a, b) => a - b);

function listCheck(key: string, expected: number[]): (body: Body) => string[] {
  return (body) => {
    const got = ids(body[key]);
    const want = sorted(expected);
    const problems: string[] = [];
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`lists ${key} ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    if (body.total !== want.length) problems.push(`total is ${String(body.total)}, expected ${want.length}`);
    return problems;
  };
}

/** The events of an iCalendar feed, by the ids of their UIDs (`<id>@<host>`). */
function feedCheck(expected: number[]): (text: string) => string[] {
  return (text) => {
    const got = sorted([...text.matchAll(/^UID:(\d+)@/gm)].map((match) => Number(match[1])));
    const want = sorted(expected);
    return JSON.stringify(got) === JSON.stringify(want) ? [] : [`feeds events ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`];
  };
}

let uniqueCounter = 0;
const unique = () => {
  uniqueCounter += 1;
  return uniqueCounter;
};

function buildRows(fx: Fixture, t: () => TestApp): Row[] {
  const rows: Row[] = [];
  const bothProtected = [fx.events.protected.id, fx.events.protectedDraft.id];
  /** What a request unlocks: the event its password belongs to; `context=edit` unlocks all for editors. */
  const unlockedBy = (suffix: string, caller: CallerName): number[] => [
    ...(suffix.includes(`password=${PASSWORD}`) ? [fx.events.protected.id] : []),
    ...(suffix.includes(`password=${DRAFT_PASSWORD}`) ? [fx.events.protectedDraft.id] : []),
    ...(suffix.includes('context=edit') && caller === 'editor' ? bothProtected : []),
  ];
  const readRow = (route: string, url: string, rules: Record<Reader, Expect>) => {
    for (const method of READ_METHODS) {
      for (const caller of CALLER_NAMES) {
        const expect = MALFORMED.includes(caller) ? UNAUTHENTICATED : rules[caller as Reader];
        rows.push({
          route: `${method} ${route}`,
          label: `${method} ${url} as ${caller}`,
          method,
          caller,
          url,
          expect,
          phase: 'read',
          unlocked: unlockedBy(url, caller),
        });
      }
    }
  };

  // Single events, by id and by slug, for every target and read variant.
  const query: Record<ReadVariant, string> = {
    plain: '',
    password: '',
    'wrong-password': '?password=not-the-password',
    'context-edit': '?context=edit',
  };
  for (const [target, variants] of Object.entries(EVENT_READ) as Array<[EventTarget, (typeof EVENT_READ)['published']]>) {
    const ref = target === 'missing' ? { id: MISSING_ID, slug: 'no-such-event' } : fx.events[target];
    for (const [variant, rules] of Object.entries(variants) as Array<[ReadVariant, Record<Reader, Expect>]>) {
      const suffix = variant === 'password' ? `?password=${target === 'protectedDraft' ? DRAFT_PASSWORD : PASSWORD}` : query[variant];
      readRow('/events/{id}', `${API}/events/${ref.id}${suffix}`, rules);
      readRow('/events/by-slug/{slug}', `${API}/events/by-slug/${ref.slug}${suffix}`, rules);
      // The iCalendar feed of one event: the same rules.
      readRow('/events/{id}.ics', `${API}/events/${ref.id}.ics${suffix}`, rules);
      readRow('/events/by-slug/{slug}.ics', `${API}/events/by-slug/${ref.slug}.ics${suffix}`, rules);
    }
  }
  // The language roots share the rules.
  readRow('/events/{id}', `/de${API}/events/${fx.events.draft.id}`, EVENT_READ.draft.plain!);
  readRow('/events/{id}', `/fr${API}/events/${fx.events.protected.id}`, EVENT_READ.protected.plain!);

  // Venues and organizers, by id and by slug.
  for (const [path, kind, refs] of [
    ['venues', 'venue', fx.venues],
    ['organizers', 'organizer', fx.organizers],
  ] as const) {
    for (const [target, rules] of Object.entries(postRead(kind)) as Array<[PostTarget, Record<Reader, Expect>]>) {
      const ref = target === 'missing' ? { id: MISSING_ID, slug: `no-such-${kind}` } : refs[target];
      readRow(`/${path}/{id}`, `${API}/${path}/${ref.id}`, rules);
      readRow(`/${path}/by-slug/{slug}`, `${API}/${path}/by-slug/${ref.slug}`, rules);
    }
  }

  // Categories and tags: terms have no status; only a malformed header is refused.
  for (const [path, kind, ref] of [
    ['categories', 'category', fx.category],
    ['tags', 'tag', fx.tag],
  ] as const) {
    readRow(`/${path}/{id}`, `${API}/${path}/${ref.id}`, same(ok));
    readRow(`/${path}/{id}`, `${API}/${path}/${MISSING_ID}`, same(err(404, `rest-${kind}-not-found`)));
  }

  // Lists: who sees what, per status filter.
  const E = fx.events;
  const publicEvents = [E.published.id, E.due.id, E.protected.id, E.linkedDraft.id, E.linkedScheduled.id];
  const everyEvent = [...publicEvents, E.draft.id, E.pending.id, E.private.id, E.scheduled.id, E.protectedDraft.id];
  const eventLists: Array<[string, Record<Reader, Expect>, { anonymous?: number[]; token: number[] }]> = [
    ['', same(ok), { anonymous: publicEvents, token: everyEvent }],
    ['&status=publish', same(ok), { anonymous: publicEvents, token: publicEvents }],
    ['&status=draft', tokenOnly(INVALID), { token: [E.draft.id, E.protectedDraft.id] }],
    ['&status=future', tokenOnly(INVALID), { token: [E.scheduled.id] }],
    ['&status=trash', tokenOnly(INVALID), { token: [E.trashed.id] }],
    ['&status=any', tokenOnly(INVALID), { token: everyEvent }],
    ['&status=publish,private', tokenOnly(INVALID), { token: [...publicEvents, E.private.id] }],
    // Naming a non-public event in a filter is refused to anonymous callers, as if it did not exist.
    [`&post_parent=${E.draft.id}`, tokenOnly(INVALID), { token: [] }],
    [`&post_parent=${E.protected.id}`, tokenOnly(INVALID), { token: [] }],
    // Nor a hidden venue or organizer: it would tell which events it is linked to.
    [`&venue=${fx.venues.draft.id}`, tokenOnly(INVALID), { token: [E.linkedDraft.id] }],
    [`&organizer=${fx.organizers.private.id}`, tokenOnly(INVALID), { token: [E.linkedScheduled.id] }],
    // A filter on a field the password hides skips protected events for whoever could not read
    // them in full: every token holder here (an editor asking context=edit does: access.test.ts).
    [`&venue=${fx.venues.published.id}`, same(ok), { anonymous: [E.published.id], token: [E.published.id, E.draft.id] }],
    [`&include=${E.draft.id},${E.published.id},${E.trashed.id}`, same(ok), { anonymous: [E.published.id], token: [E.draft.id, E.published.id] }],
    [`&password=${PASSWORD}`, same(ok), { anonymous: publicEvents, token: everyEvent }],
    [`&password=${DRAFT_PASSWORD}`, same(ok), { anonymous: publicEvents, token: everyEvent }],
    ['&context=edit', same(ok), { anonymous: publicEvents, token: everyEvent }],
    ['&modified_after=not-a-date', same(INVALID), { token: [] }],
  ];
  for (const [suffix, rules, expected] of eventLists) {
    for (const method of READ_METHODS) {
      for (const caller of CALLER_NAMES) {
        const reader = MALFORMED.includes(caller) ? null : (caller as Reader);
        const want = reader === 'anonymous' ? expected.anonymous : expected.token;
        rows.push({
          route: `${method} /events`,
          label: `${method} /events?per_page=50${suffix} as ${caller}`,
          method,
          caller,
          url: `${API}/events?per_page=50${suffix}`,
          expect: reader === null ? UNAUTHENTICATED : rules[reader],
          isList: true,
          unlocked: unlockedBy(suffix, caller),
          ...(method === 'GET' && want !== undefined ? { check: listCheck('events', want) } : {}),
          phase: 'read',
        });
        // The iCalendar feed of the list: the same rules and the same events (paging is no parameter of it).
        rows.push({
          route: `${method} /events.ics`,
          label: `${method} /events.ics?per_page=50${suffix} as ${caller}`,
          method,
          caller,
          url: `${API}/events.ics?per_page=50${suffix}`,
          expect: reader === null ? UNAUTHENTICATED : rules[reader],
          isList: true,
          unlocked: unlockedBy(suffix, caller),
          ...(method === 'GET' && want !== undefined ? { checkText: feedCheck(want) } : {}),
          phase: 'read',
        });
      }
    }
  }

  for (const [path, refs] of [
    ['venues', fx.venues],
    ['organizers', fx.organizers],
  ] as const) {
    const publicIds = [refs.published.id, refs.due.id];
    const everyId = [...publicIds, refs.draft.id, refs.pending.id, refs.private.id, refs.scheduled.id];
    const lists: Array<[string, Record<Reader, Expect>, { anonymous?: number[]; token: number[] }]> = [
      ['', same(ok), { anonymous: publicIds, token: everyId }],
      ['&status=publish', same(ok), { anonymous: publicIds, token: publicIds }],
      ['&status=draft', tokenOnly(INVALID), { token: [refs.draft.id] }],
      ['&status=trash', tokenOnly(INVALID), { token: [refs.trashed.id] }],
      ['&status=any', tokenOnly(INVALID), { token: everyId }],
      ['&status=future', tokenOnly(INVALID), { token: [refs.scheduled.id] }],
      // A sync pass sees what the plain list shows.
      ['&modified_after=2000-01-01&orderby=modified', same(ok), { anonymous: publicIds, token: everyId }],
      [
        `&event=${E.linkedScheduled.id}`,
        same(ok),
        { anonymous: path === 'venues' ? [] : [refs.due.id], token: path === 'venues' ? [refs.scheduled.id] : [refs.private.id, refs.due.id, refs.pending.id] },
      ],
      [`&event=${E.draft.id}`, tokenOnly(INVALID), { token: path === 'venues' ? [fx.venues.published.id] : [fx.organizers.published.id] }],
      [`&event=${E.protected.id}`, tokenOnly(INVALID), { token: path === 'venues' ? [fx.venues.published.id] : [fx.organizers.published.id] }],
      [
        '&has_events=1',
        same(ok),
        {
          anonymous: path === 'venues' ? [fx.venues.published.id] : [fx.organizers.published.id, fx.organizers.due.id],
          token:
            path === 'venues'
              ? [fx.venues.published.id, fx.venues.draft.id, fx.venues.scheduled.id]
              : [fx.organizers.published.id, fx.organizers.draft.id, fx.organizers.private.id, fx.organizers.due.id, fx.organizers.pending.id],
        },
      ],
      [
        '&has_events=0',
        same(ok),
        {
          anonymous: path === 'venues' ? [fx.venues.due.id] : [],
          token: path === 'venues' ? [fx.venues.pending.id, fx.venues.private.id, fx.venues.due.id] : [fx.organizers.scheduled.id],
        },
      ],
      [
        '&only_with_upcoming=1',
        same(ok),
        {
          anonymous: path === 'venues' ? [fx.venues.published.id] : [fx.organizers.published.id, fx.organizers.due.id],
          token:
            path === 'venues'
              ? [fx.venues.published.id, fx.venues.draft.id, fx.venues.scheduled.id]
              : [fx.organizers.published.id, fx.organizers.draft.id, fx.organizers.private.id, fx.organizers.due.id, fx.organizers.pending.id],
        },
      ],
    ];
    for (const [suffix, rules, expected] of lists) {
      for (const method of READ_METHODS) {
        for (const caller of CALLER_NAMES) {
          const reader = MALFORMED.includes(caller) ? null : (caller as Reader);
          const want = reader === 'anonymous' ? expected.anonymous : expected.token;
          rows.push({
            route: `${method} /${path}`,
            label: `${method} /${path}?per_page=50${suffix} as ${caller}`,
            method,
            caller,
            url: `${API}/${path}?per_page=50${suffix}`,
            expect: reader === null ? UNAUTHENTICATED : rules[reader],
            isList: true,
            ...(method === 'GET' && want !== undefined ? { check: listCheck(path, want) } : {}),
            phase: 'read',
          });
        }
      }
    }
  }

  for (const [path, ref] of [
    ['categories', fx.category],
    ['tags', fx.tag],
  ] as const) {
    const lists: Array<[string, Record<Reader, Expect>]> = [
      ['', same(ok)],
      ['?hide_empty=false', same(ok)],
      [`?post=${E.published.id}`, same(ok)],
      [`?post=${E.draft.id}`, tokenOnly(INVALID)],
      // A protected event's terms are what its password hides: only an editor may list them.
      [`?event=${E.protected.id}`, { anonymous: INVALID, viewer: INVALID, editor: ok }],
      [`?post=${E.protectedDraft.id}`, { anonymous: INVALID, viewer: INVALID, editor: ok }],
    ];
    for (const [suffix, rules] of lists) {
      for (const method of READ_METHODS) {
        for (const caller of CALLER_NAMES) {
          const reader = MALFORMED.includes(caller) ? null : (caller as Reader);
          rows.push({
            route: `${method} /${path}`,
            label: `${method} /${path}${suffix} as ${caller}`,
            method,
            caller,
            url: `${API}/${path}${suffix}`,
            expect: reader === null ? UNAUTHENTICATED : rules[reader],
            isList: true,
            ...(method === 'GET' && suffix.includes(`=${E.published.id}`) ? { check: listCheck(path, [ref.id]) } : {}),
            phase: 'read',
          });
        }
      }
    }
  }

  // The namespace index and /doc describe routes, not records: public like the health routes. A
  // malformed Authorization header is refused everywhere.
  readRow('/', API, same(ok));
  readRow('/doc', `${API}/doc`, same(ok));
  // Tombstones name a type and an id, nothing more: anyone may ask (the fixture trashed nothing
  // through the API, so none are listed).
  readRow('/series/{id}', `${API}/series/${fx.series.published.id}`, same(ok));
  readRow('/series/{id}', `/de${API}/series/${fx.series.draft.id}`, tokenOnly(notAccessible));
  readRow('/series/{id}', `${API}/series/${MISSING_ID}`, same(err(404, 'rest-series-not-found')));
  readRow('/deleted', `${API}/deleted?since=-1%20day`, same(ok));
  readRow('/deleted', `${API}/deleted?since=2000-01-01`, same(err(410, 'rest_sync_expired')));
  readRow('/deleted', `${API}/deleted`, same(err(400, 'rest_missing_callback_param')));
  for (const path of ['/health/live', '/health/ready']) readRow(path, path, same(ok));

  // ── Writes ──
  type Resource = {
    path: string;
    bySlug: boolean;
    create: () => Body;
    update: Body;
    rules: Record<'update' | 'delete', Partial<Record<WriteTarget, Expect>>>;
    /** The shared fixture's record for refused writes. */
    shared: Partial<Record<WriteTarget, Ref>>;
    /** A record of its own for an editor write. */
    fresh: (target: WriteTarget) => Promise<Ref>;
  };
  const freshPost = (insert: typeof insertVenue | typeof insertOrganizer, kind: string) => async (target: WriteTarget) => {
    const n = unique();
    const doc = await insert(t().storage, {
      name: `Fresh ${kind} ${n}`,
      nameKey: `fresh ${kind} ${n}`,
      slug: `fresh-${kind}-${n}`,
      status: target === 'draft' ? 'draft' : target === 'trashed' ? 'trash' : 'publish',
    });
    return { id: doc._id, slug: doc.slug };
  };
  const resources: Resource[] = [
    {
      path: 'events',
      bySlug: true,
      create: () => makeEventInput({ title: `Matrix created event ${unique()}` }),
      update: { title: 'Renamed by the matrix' },
      rules: EVENT_WRITE,
      shared: { published: E.published, draft: E.draft, trashed: E.trashed, protected: E.protected },
      fresh: async (target) => {
        const storage = t().storage;
        const id = await storage.nextId('posts');
        const doc = makeEventDoc({
          _id: id,
          slug: `fresh-event-${id}`,
          status: target === 'draft' ? 'draft' : target === 'trashed' ? 'trash' : 'publish',
          password: target === 'protected' ? PASSWORD : null,
        });
        await storage.events.insertOne(doc);
        return { id, slug: doc.slug };
      },
    },
    {
      path: 'venues',
      bySlug: true,
      create: () => ({ venue: `Matrix created venue ${unique()}` }),
      update: { city: 'Matrixville' },
      rules: postWrite('venue'),
      shared: { published: fx.venues.published, draft: fx.venues.draft, trashed: fx.venues.trashed },
      fresh: freshPost(insertVenue, 'venue'),
    },
    {
      path: 'organizers',
      bySlug: true,
      create: () => ({ organizer: `Matrix created organizer ${unique()}` }),
      update: { phone: '+1 555 0100' },
      rules: postWrite('organizer'),
      shared: { published: fx.organizers.published, draft: fx.organizers.draft, trashed: fx.organizers.trashed },
      fresh: freshPost(insertOrganizer, 'organizer'),
    },
    ...(['categories', 'tags'] as const).map((path) => ({
      path,
      bySlug: false,
      create: () => ({ name: `Matrix created ${path} ${unique()}` }),
      update: { description: 'Updated by the matrix' },
      rules: termWrite(path === 'categories' ? 'category' : 'tag'),
      shared: { published: path === 'categories' ? fx.category : fx.tag },
      fresh: async () => {
        const insert = path === 'categories' ? insertCategory : insertTag;
        const n = unique();
        const doc = await insert(t().storage, { name: `Fresh ${path} ${n}`, nameKey: `fresh ${path} ${n}`, slug: `fresh-${path}-${n}` });
        return { id: doc._id, slug: doc.slug };
      },
    })),
  ];

  // A body no route accepts: refused callers are answered before validation.
  const invalidBody: Body = { bogus: true, title: '' };
  for (const resource of resources) {
    for (const caller of CALLER_NAMES) {
      const refused = refusedWrite(caller);
      rows.push({
        route: `POST /${resource.path}`,
        label: `POST /${resource.path} as ${caller}`,
        method: 'POST',
        caller,
        url: `${API}/${resource.path}`,
        payload: refused ? invalidBody : resource.create(),
        expect: refused ?? created,
        phase: refused ? 'refused-write' : 'editor-write',
      });
    }
    const addressings: Array<['{id}' | 'by-slug/{slug}', (ref: Ref) => string]> = [['{id}', (ref) => String(ref.id)]];
    if (resource.bySlug) addressings.push(['by-slug/{slug}', (ref) => `by-slug/${ref.slug}`]);
    for (const [pattern, address] of addressings) {
      for (const op of ['update', 'delete'] as const) {
        for (const method of op === 'update' ? UPDATE_METHODS : (['DELETE'] as HTTPMethods[])) {
          for (const [target, editorExpect] of Object.entries(resource.rules[op]) as Array<[WriteTarget, Expect]>) {
            const missing: Ref = { id: MISSING_ID, slug: 'no-such-record' };
            for (const caller of CALLER_NAMES) {
              const refused = refusedWrite(caller);
              const route = `${method} /${resource.path}/${pattern}`;
              if (refused) {
                const ref = target === 'missing' ? missing : resource.shared[target]!;
                rows.push({
                  route,
                  label: `${method} /${resource.path}/${address(ref)} [${target}] as ${caller}`,
                  method,
                  caller,
                  url: `${API}/${resource.path}/${address(ref)}`,
                  ...(op === 'update' ? { payload: invalidBody } : {}),
                  expect: refused,
                  phase: 'refused-write',
                });
              } else {
                rows.push({
                  route,
                  label: `${method} /${resource.path}/${pattern} [fresh ${target}] as editor`,
                  method,
                  caller,
                  url: async () => `${API}/${resource.path}/${address(target === 'missing' ? missing : await resource.fresh(target))}`,
                  ...(op === 'update' ? { payload: resource.update } : {}),
                  expect: editorExpect,
                  phase: 'editor-write',
                });
              }
            }
          }
        }
      }
    }
  }
  const order = { read: 0, 'refused-write': 1, 'editor-write': 2 };
  return rows.sort((a, b) => order[a.phase] - order[b.phase]);
}

/**
 * `/events/{id}` etc., for the API routes the app registers under the default root (the other
 * language roots serve the same table), and the health routes.
 */
function routePattern(url: string): string | null {
  if (url.startsWith('/health/')) return url;
  if (url === API || url === `${API}/`) return '/';
  if (!url.startsWith(`${API}/`)) return null;
  return url
    .slice(API.length)
    .replace(/:id\([^)]*\)/, '{id}')
    .replace(':slug', '{slug}');
}

describe.each(engines)('$name engine: authorization matrix', (engine) => {
  let t: TestApp;
  let fx: Fixture;
  beforeAll(async () => {
    t = await openTestApp(engine);
    fx = await buildFixture(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('covers every route and method the API registers', async () => {
    const storage = await engine.open();
    const app = buildApp({ config: loadConfig({ RATE_LIMIT_READS: '0', RATE_LIMIT_WRITES: '0' }), storage, logger: false });
    const registered = new Set<string>();
    app.addHook('onRoute', (route) => {
      const pattern = routePattern(route.url ?? route.path);
      if (pattern !== null) for (const method of [route.method].flat()) registered.add(`${method} ${pattern}`);
    });
    try {
      await app.ready();
    } finally {
      await app.close();
      await storage.close();
    }
    const covered = new Set(buildRows(fx, () => t).map((row) => row.route));
    expect(registered.size).toBeGreaterThan(40);
    // A route added without rows here fails this test, so the matrix keeps up with the API.
    expect([...covered].sort()).toEqual([...registered].sort());
  });

  it('answers every route × method × caller × target as the rules say, and shows nobody anything it may not see', async () => {
    const rows = buildRows(fx, () => t);
    const failures: string[] = [];
    let before: Awaited<ReturnType<typeof snapshot>> | null = null;
    let phase: Row['phase'] = 'read';
    const counts = { read: 0, 'refused-write': 0, 'editor-write': 0 };
    for (const row of rows) {
      if (row.phase !== phase) {
        if (row.phase === 'refused-write') before = await snapshot(t.storage);
        if (phase === 'refused-write' && before) {
          // Nothing a refused caller sent changed anything.
          if (JSON.stringify(await snapshot(t.storage)) !== JSON.stringify(before)) failures.push('refused writes changed the store');
        }
        phase = row.phase;
      }
      counts[row.phase] += 1;
      const url = typeof row.url === 'string' ? row.url : await row.url();
      const response = await t.app.inject({
        method: row.method,
        url,
        headers: CALLERS[row.caller],
        ...(row.payload === undefined ? {} : { payload: row.payload }),
      });
      const problems: string[] = [];
      if (response.statusCode !== row.expect.status)
        problems.push(`status ${response.statusCode}, expected ${row.expect.status} (${response.body.slice(0, 160)})`);
      if (row.method === 'HEAD') {
        if (response.body !== '') problems.push('HEAD answered with a body');
      } else if (String(response.headers['content-type']).startsWith('text/calendar')) {
        if (response.statusCode === 200 && row.checkText) problems.push(...row.checkText(response.body));
      } else {
        const body = json<Body>(response);
        if (row.expect.code !== undefined && body.code !== row.expect.code) problems.push(`code ${String(body.code)}, expected ${row.expect.code}`);
        if (row.expect.status >= 400 && (body.data as Body | undefined)?.status !== row.expect.status) problems.push('error body without data.status');
        if (response.statusCode === 200 && row.check) problems.push(...row.check(body));
      }
      problems.push(
        ...inspect(response, {
          fx,
          caller: row.caller,
          unlocked: row.unlocked ?? [],
          isList: row.isList ?? false,
          describesApi: row.route.endsWith(' /') || row.route.endsWith(' /doc'),
        }),
      );
      for (const problem of problems) failures.push(`${row.label}: ${problem}`);
    }
    if (phase === 'refused-write' && before && JSON.stringify(await snapshot(t.storage)) !== JSON.stringify(before)) {
      failures.push('refused writes changed the store');
    }
    // No phase of the table is empty.
    expect(counts.read).toBeGreaterThan(500);
    expect(counts['refused-write']).toBeGreaterThan(200);
    expect(counts['editor-write']).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  }, 180_000);
});
