/**
 * The events service's bulk create (the seed CLI's path): every record checked as a single create
 * checks it, the valid ones stored together, a refused one failing alone, and slugs made unique
 * exactly as one-by-one creates would make them — on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { createEventsService } from '../../src/services/events/index.js';
import { createOrganizersService } from '../../src/services/organizers.js';
import { createVenuesService } from '../../src/services/venues.js';
import { createTermsService } from '../../src/services/terms.js';
import { createTombstones } from '../../src/services/tombstones.js';
import { type EventDoc, type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();
const CALLER = { role: 'editor', authorId: 1 } as const;

describe.each(engines.map((engine) => [engine.name, engine] as const))('%s engine: events.createDocs', (_name, engine) => {
  let storage: Storage;
  let events: ReturnType<typeof createEventsService>;
  beforeEach(async () => {
    storage = await engine.open();
    await storage.ensureIndexes();
    const deps = {
      storage,
      siteTimezone: 'UTC',
      perPageMax: 50,
      tombstones: createTombstones({ storage, retentionDays: 30, siteTimezone: 'UTC', perPageMax: 50 }),
    };
    const terms = { categories: createTermsService('categories', deps), tags: createTermsService('tags', deps) };
    events = createEventsService({ ...deps, venues: createVenuesService(deps), organizers: createOrganizersService(deps), ...terms });
  });
  afterEach(async () => {
    await storage.close();
  });

  const at = (day: number) => `2030-05-${String(day).padStart(2, '0')} 19:00`;

  it('stores the valid records, fails a refused one alone, and suffixes slugs as single creates would', async () => {
    const stored = await events.createDoc({ title: 'Taken', slug: 'taken', start_date: at(1), end_date: at(1) }, CALLER);
    const results = await events.createDocs(
      [
        { title: 'Jazz Night', start_date: at(2), end_date: at(2) },
        { title: 'Broken', start_date: at(3), end_date: at(3), venue: 987654 },
        { title: 'Jazz Night', start_date: at(4), end_date: at(4) },
        { title: 'Other', slug: 'taken', start_date: at(5), end_date: at(5), categories: ['Brand New Category'] },
        { title: 'Plain', start_date: at(6), end_date: at(6) },
      ],
      CALLER,
    );
    expect(results[1]).toBeInstanceOf(ApiError);
    expect((results[1] as ApiError).statusCode).toBe(400);
    const created = results.filter((r): r is EventDoc => !(r instanceof ApiError));
    expect(created.map((doc) => doc.slug)).toEqual(['jazz-night', 'jazz-night-2', 'taken-2', 'plain']);
    // Stored as returned, with distinct ids; the named category was created and linked.
    for (const doc of created) expect(await storage.events.findById(doc._id)).toEqual(doc);
    expect(new Set([stored._id, ...created.map((doc) => doc._id)]).size).toBe(5);
    const category = await storage.categories.findOne({ slug: 'brand-new-category' });
    expect(created[2]!.categoryIds).toEqual([category!._id]);
    expect(await storage.events.count({})).toBe(5);
    expect(await storage.events.findOne({ title: 'Broken' })).toBeNull();
  });

  it('resolves every form of reference exactly as one-by-one creates do (the batch reads known ids up front)', async () => {
    // Two stores set up alike: the batch on one, single creates (each reference read on its own) on the other.
    const now = () => new Date('2030-01-01T00:00:00Z');
    const setUp = async (target: Storage) => {
      const tombstones = createTombstones({ storage: target, retentionDays: 30, siteTimezone: 'UTC', perPageMax: 50, now });
      const deps = { storage: target, siteTimezone: 'UTC', perPageMax: 50, tombstones, now };
      const services = {
        venues: createVenuesService(deps),
        organizers: createOrganizersService(deps),
        categories: createTermsService('categories', deps),
        tags: createTermsService('tags', deps),
      };
      const service = createEventsService({ ...deps, ...services });
      const venue = await services.venues.create({ venue: 'Hall' }, CALLER);
      const [o1, o2] = [await services.organizers.create({ organizer: 'Ada' }, CALLER), await services.organizers.create({ organizer: 'Bo' }, CALLER)];
      const category = await services.categories.create({ name: 'Music' });
      const tag = await services.tags.create({ name: 'Jazz' });
      const parent = await service.createDoc({ title: 'Parent', start_date: at(1), end_date: at(1) }, CALLER);
      return { service, ids: { venue: venue.doc._id, o1: o1.doc._id, o2: o2.doc._id, category: category.doc._id, tag: tag.doc._id, parent: parent._id } };
    };
    const other = await engine.open();
    try {
      await other.ensureIndexes();
      const batch = await setUp(storage);
      const single = await setUp(other);
      expect(single.ids).toEqual(batch.ids);
      const { venue, o1, o2, category, tag, parent } = batch.ids;
      const base = (n: number) => ({ title: `Event ${n}`, start_date: at(2), end_date: at(2) });
      const inputs = [
        { ...base(1), venue, organizer: [o1, o2, o1], categories: [category, category], tags: [tag], post_parent: parent },
        { ...base(2), venue: String(venue), organizer: `${o2},${o1}`, categories: `${category}, ${category}`, tags: String(tag), post_parent: String(parent) },
        { ...base(3), venue: [venue], organizer: [0, '', o2], categories: [' ', category], tags: [], post_parent: 0 },
        { ...base(4), venue: 0, organizer: '0', post_parent: '00' },
        { ...base(5), venue: '', organizer: [], categories: ['music', 'New Genre'], tags: ['jazz', tag] },
        { ...base(6), venue: { venue: 'Nested Hall' }, organizer: [{ organizer: 'Nested Org' }, o1] },
        { ...base(7), organizer: [o1, 999_999] },
        { ...base(8), venue: 999_999 },
        { ...base(9), categories: [category, 999_999] },
        { ...base(10), tags: [999_999] },
        { ...base(11), post_parent: 999_999 },
        { ...base(12), venue: -1, organizer: 'x' },
        { ...base(13), post_parent: 'abc' },
      ] as Parameters<typeof batch.service.createDocs>[0];
      const batched = await batch.service.createDocs(inputs, CALLER);
      const oneByOne: Array<EventDoc | ApiError> = [];
      for (const input of inputs) oneByOne.push(await single.service.createDoc(input, CALLER).catch((error: unknown) => error as ApiError));

      // Linked records by slug (records created on the way get different ids in the two stores).
      const described = async (target: Storage, result: EventDoc | ApiError) => {
        if (result instanceof ApiError)
          return { status: result.statusCode, code: result.code, params: Object.keys((result as { params?: object }).params ?? {}) };
        const slugs = async (collection: 'venues' | 'organizers' | 'categories' | 'tags' | 'events', ids: number[]) =>
          Promise.all(ids.map(async (id) => (await target[collection].findById(id))?.slug ?? `missing ${id}`));
        const { _id, venueId, organizerIds, categoryIds, tagIds, postParent, ...fields } = result;
        return {
          fields,
          venue: venueId === null ? null : await slugs('venues', [venueId]),
          organizers: await slugs('organizers', organizerIds),
          categories: await slugs('categories', categoryIds),
          tags: await slugs('tags', tagIds),
          parent: postParent === null || postParent === undefined ? postParent : await slugs('events', [postParent]),
        };
      };
      for (const [k] of inputs.entries()) {
        expect({ k, ...(await described(storage, batched[k]!)) }).toEqual({ k, ...(await described(other, oneByOne[k]!)) });
      }
      // The forms are all exercised: linked, unlinked, created on the way, refused.
      expect(batched.filter((r) => r instanceof ApiError)).toHaveLength(7);
      expect((batched[0] as EventDoc).organizerIds).toEqual([o1, o2]);
      expect((batched[2] as EventDoc).postParent).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('stores nothing and returns the errors when every record is refused', async () => {
    const results = await events.createDocs([{ title: ' ', start_date: at(2), end_date: at(2) }], CALLER);
    expect(results[0]).toBeInstanceOf(ApiError);
    expect(await storage.events.count({})).toBe(0);
  });
});
