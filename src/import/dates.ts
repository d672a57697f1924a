/**
 * Dates of seed records. The import resolves every event date itself and hands the services a Unix
 * timestamp, which they read as exactly that instant — so relative phrases are counted from the
 * anchor the import chooses (see run.ts), not from whenever the service runs. Reading a
 * date is the API's own `parseDateInput`, common forms included.
 */
import { parseDateInput } from '../lib/dates/index.js';

/**
 * A seed date as an instant: read in `timezone`, relative phrases counted from `anchor`. Null when
 * the API would refuse it.
 */
export function resolveSeedDate(raw: string | number, timezone: string, anchor: Date): Date | null {
  return parseDateInput(raw, { timezone, now: anchor });
}

/** Whether a date's meaning depends on when it is read (`+3 days`, `tomorrow`, `next monday 9am`). */
export function isRelativeDate(raw: string | number, timezone: string): boolean {
  if (typeof raw === 'number') return false;
  const a = parseDateInput(raw, { timezone, now: new Date(Date.UTC(2001, 0, 1, 12)) });
  const b = parseDateInput(raw, { timezone, now: new Date(Date.UTC(2002, 6, 3, 7, 11, 13)) });
  return a === null || b === null || a.getTime() !== b.getTime();
}

/** Unix seconds: what the services are given (they read a number as this exact instant). */
export const toTimestamp = (instant: Date): number => Math.floor(instant.getTime() / 1000);
