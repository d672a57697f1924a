/**
 * The events service's bulk create (the seed CLI's path): every record checked as a single create
 * checks it, the valid ones stored together, a refused one failing alone, and slugs made unique
 * exactly as one-by-one creates would make them — on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { createEventsService } from '../../src/services/events.js';
import { createOrganizersService } from '../../src/services/organizers.js';
import { createVenuesService } from '../../src/services/venues.js';
import { createTermsService } from '../../src/services/terms.js';
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
    const deps = { storage, siteTimezone: 'UTC', perPageMax: 50 };
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

  it('stores nothing and returns the errors when every record is refused', async () => {
    const results = await events.createDocs([{ title: ' ', start_date: at(2), end_date: at(2) }], CALLER);
    expect(results[0]).toBeInstanceOf(ApiError);
    expect(await storage.events.count({})).toBe(0);
  });
});
