/**
 * Seed dates are read by the API's own parseDateInput (its common forms included: see
 * test/unit/dates-fast-path.test.ts), relative phrases counted from the loader's anchor; publication
 * dates must be absolute.
 */
import { describe, expect, it } from 'vitest';
import { isRelativeDate, resolveSeedDate, toTimestamp } from '../../src/import/dates.js';

describe('seed dates', () => {
  it('count relative phrases from the anchor, in the zone given', () => {
    const anchor = new Date(Date.UTC(2026, 4, 10, 9, 15));
    expect(resolveSeedDate('+3 days 19:30', 'Europe/Paris', anchor)?.toISOString()).toBe('2026-05-13T17:30:00.000Z');
    expect(resolveSeedDate('tomorrow 9am', 'America/New_York', anchor)?.toISOString()).toBe('2026-05-11T13:00:00.000Z');
    expect(resolveSeedDate('2026-05-01 19:30', 'Europe/Paris', anchor)?.toISOString()).toBe('2026-05-01T17:30:00.000Z');
    expect(resolveSeedDate(1767225600, 'Europe/Paris', anchor)?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(resolveSeedDate('not a date', 'Europe/Paris', anchor)).toBeNull();
  });

  it('tells relative dates from absolute ones', () => {
    expect(isRelativeDate('+3 days 19:30', 'UTC')).toBe(true);
    expect(isRelativeDate('tomorrow', 'UTC')).toBe(true);
    expect(isRelativeDate('2026-05-01 10:00', 'Europe/Berlin')).toBe(false);
    expect(isRelativeDate('1 May 2026 10:00', 'Europe/Berlin')).toBe(false);
    expect(isRelativeDate(1767225600, 'UTC')).toBe(false);
  });

  it('hands the services whole Unix seconds', () => {
    expect(toTimestamp(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 999)))).toBe(1767225600);
  });
});
