/**
 * The tombstone rules (src/services/tombstones.ts) on every engine: which change leaves which
 * tombstone, one per record, and the pruning of those past the retention.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTombstones, eventVisibility, type ListVisibility, linkedPostVisibility, tombstoneId } from '../../src/services/tombstones.js';
import { type Storage } from '../../src/storage/port.js';
import { enginesUnderTest } from '../helpers/engines.js';

const { engines } = await enginesUnderTest();
const DAY = 24 * 60 * 60 * 1000;

describe('visibility in the lists', () => {
  const at = new Date('2030-01-01T00:00:00Z');
  const past = new Date(at.getTime() - DAY);
  const ahead = new Date(at.getTime() + DAY);
  it.each([
    [{ status: 'publish', dateUtc: past, hideFromListings: false }, 'public'],
    [{ status: 'future', dateUtc: past, hideFromListings: false }, 'public'],
    [{ status: 'future', dateUtc: ahead, hideFromListings: false }, 'token'],
    [{ status: 'private', dateUtc: past, hideFromListings: false }, 'token'],
    [{ status: 'draft', dateUtc: past, hideFromListings: false }, 'token'],
    [{ status: 'publish', dateUtc: past, hideFromListings: true }, 'none'],
    [{ status: 'trash', dateUtc: past, hideFromListings: false }, 'none'],
  ] as const)('an event %o is listed for %s', (doc, expected) => {
    expect(eventVisibility(doc, at)).toBe(expected);
  });
  it.each([
    [{ status: 'publish', dateUtc: past }, 'public'],
    [{ status: 'pending', dateUtc: past }, 'token'],
    [{ status: 'trash', dateUtc: past }, 'none'],
  ] as const)('a venue or organizer %o is listed for %s', (doc, expected) => {
    expect(linkedPostVisibility(doc, at)).toBe(expected);
  });
});

describe.each(engines.map((engine) => [engine.name, engine] as const))('%s engine: tombstones', (_name, engine) => {
  let storage: Storage;
  let at: number;
  const now = () => new Date(at);
  const service = (retentionDays = 30) => createTombstones({ storage, retentionDays, siteTimezone: 'UTC', perPageMax: 50, now });

  beforeEach(async () => {
    storage = await engine.open();
    await storage.ensureIndexes();
    at = Date.parse('2030-01-01T00:00:00Z');
  });
  afterEach(async () => {
    await storage.close();
  });

  const stone = async (id: number) => {
    const doc = await storage.tombstones.findById(tombstoneId('event', id));
    return doc && { audience: doc.audience, deletedAt: doc.deletedAt.getTime() };
  };

  it('keeps one tombstone per record, whose audience follows who no longer lists it', async () => {
    const tombstones = service();
    const steps: Array<[before: ListVisibility | null, after: ListVisibility, expected: { audience: string; deletedAt: number } | null]> = [
      // Created as a draft, published: nobody listed it and then lost it.
      ['token', 'public', null],
      // Unpublished: anonymous callers lost it.
      ['public', 'token', { audience: 'public', deletedAt: 1000 }],
      // Edited as a draft: nothing new.
      ['token', 'token', { audience: 'public', deletedAt: 1000 }],
      // Trashed: everyone lost it.
      ['token', 'none', { audience: 'all', deletedAt: 3000 }],
      // Restored as a draft: token holders list it again, anonymous callers still do not.
      ['none', 'token', { audience: 'public', deletedAt: 4000 }],
      // Published: no tombstone.
      ['token', 'public', null],
      // Hidden from listings, then shown again.
      ['public', 'none', { audience: 'all', deletedAt: 6000 }],
      ['none', 'public', null],
    ];
    for (const [i, [before, after, expected]] of steps.entries()) {
      at = Date.parse('2030-01-01T00:00:00Z') + i * 1000;
      await tombstones.recordChange('event', 42, before, after);
      const got = await stone(42);
      expect(got && { ...got, deletedAt: got.deletedAt - Date.parse('2030-01-01T00:00:00Z') }, `step ${i}`).toEqual(expected);
    }
    expect(await storage.tombstones.count({})).toBe(0);
  });

  it('ensureGone: writes the tombstone for everyone a failed trash left out, dated now; keeps one that stands', async () => {
    const tombstones = service(2);
    const trashedAt = new Date(at);
    at += 1000;
    await tombstones.ensureGone('event', 11, trashedAt);
    expect(await stone(11)).toEqual({ audience: 'all', deletedAt: at });
    // Standing already: left as it was, so a retried DELETE reports nothing new.
    at += 1000;
    await tombstones.ensureGone('event', 11, trashedAt);
    expect(await stone(11)).toEqual({ audience: 'all', deletedAt: at - 1000 });
    // One for anonymous callers only becomes one for everyone.
    await tombstones.recordChange('venue', 12, 'public', 'token');
    await tombstones.ensureGone('venue', 12, new Date(at));
    expect((await storage.tombstones.findById(tombstoneId('venue', 12)))?.audience).toBe('all');
    // Trashed longer ago than the retention: its tombstone may have been pruned on purpose.
    await tombstones.ensureGone('organizer', 13, new Date(at - 3 * DAY));
    expect(await storage.tombstones.findById(tombstoneId('organizer', 13))).toBeNull();
  });

  it('tells records of different types with the same id apart', async () => {
    const tombstones = service();
    await tombstones.recordChange('category', 7, null, 'none');
    await tombstones.recordChange('event', 7, 'public', 'none');
    await tombstones.recordChange('tag', 7, null, 'none');
    const listed = await tombstones.list({ since: '2029-12-31' }, null);
    expect(listed.items.map((doc) => `${doc.type}:${doc.recordId}`).sort()).toEqual(['category:7', 'event:7', 'tag:7']);
  });

  it('prunes tombstones past the retention as tombstones are written, oldest first, and leaves the others', async () => {
    const tombstones = service(2);
    const kept = async () => (await storage.tombstones.find({ filter: {}, sort: [['_id', 1]] })).map((doc) => doc.recordId);
    for (let id = 1; id <= 5; id++) {
      await tombstones.recordChange('venue', id, 'public', 'none');
      await tombstones.pruning();
      at += DAY;
    }
    // Each write pruned what was past 2 days then: on day 3 the first, on day 4 the second.
    expect(await kept()).toEqual([3, 4, 5]);
    // Day 5: the third is past 2 days now.
    expect(await tombstones.prune()).toBe(1);
    expect(await kept()).toEqual([4, 5]);
    expect(await tombstones.prune()).toBe(0);
  });
});
