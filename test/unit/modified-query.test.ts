/**
 * The modification window (src/query/modified.ts): whole-second inclusive bounds, the ranges of
 * scheduled publications that count as changes, and the clauses built from them.
 */
import { describe, expect, it } from 'vitest';
import { modifiedClauses, publicationRanges, resolveModified } from '../../src/query/modified.js';

const now = new Date('2030-03-01T10:00:05.700Z');

describe('the modification window', () => {
  it('reads both bounds to the whole second, absolute or relative, in the site time zone, and echoes them', () => {
    const { bounds, invalid, echo } = resolveModified(
      { modified_after: '2030-03-01 11:00:05.900', modified_before: '-1 hour' },
      { now, siteTimezone: 'Europe/Berlin' },
    );
    expect(bounds).toEqual({ after: new Date('2030-03-01T10:00:05Z'), before: new Date('2030-03-01T09:00:05Z') });
    expect(invalid).toEqual([]);
    expect(echo).toEqual([
      ['modified_after', '2030-03-01 11:00:05'],
      ['modified_before', '2030-03-01 10:00:05'],
    ]);
    expect(resolveModified({ modified_after: 'soon-ish' }, { now, siteTimezone: 'UTC' }).invalid).toEqual(['modified_after']);
  });

  it('counts scheduled publications from the lower bound to now, and those after the upper bound up to now', () => {
    const after = new Date('2030-03-01T09:00:00Z');
    const before = new Date('2030-03-01T09:30:00Z');
    expect(publicationRanges({ after, before }, now)).toEqual({
      after: [after, new Date('2030-03-01T10:00:05Z')],
      before: [new Date('2030-03-01T09:30:01Z'), new Date('2030-03-01T10:00:05Z')],
    });
    // Bounds ahead of the clock: nothing published there yet.
    expect(publicationRanges({ after: new Date('2030-03-02T00:00:00Z'), before: new Date('2030-03-02T00:00:00Z') }, now)).toEqual({});
  });

  it('is a range on modifiedUtc, widened by the late publications below and narrowed by those above', () => {
    const after = new Date('2030-03-01T09:00:00Z');
    const before = new Date('2030-03-01T09:30:00Z');
    expect(modifiedClauses({ after, before })).toEqual([{ modifiedUtc: { $gte: after } }, { modifiedUtc: { $lt: new Date('2030-03-01T09:30:01Z') } }]);
    expect(modifiedClauses({ after, before }, { after: [{ _id: { $in: [3] } }], before: [{ _id: { $in: [4] } }] })).toEqual([
      { $or: [{ modifiedUtc: { $gte: after } }, { _id: { $in: [3] } }] },
      { modifiedUtc: { $lt: new Date('2030-03-01T09:30:01Z') }, $nor: [{ _id: { $in: [4] } }] },
    ]);
    expect(modifiedClauses({})).toEqual([]);
  });
});
