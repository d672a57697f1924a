/**
 * Local dates of a series as `YYYY-MM-DD` strings, handled as UTC midnights: a local date has no
 * zone, and the UTC calendar has no DST, so adding days never skips or repeats one.
 */

/** A refusal of a recurrence: `message` is an English sentence starting with `recurrence:`. */
export class RecurrenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecurrenceError';
  }
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** `YYYY-MM-DD`, or a date-time `YYYY-MM-DD[T ]HH:MM[:SS]`. */
const DASHED = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;
/** `YYYYMMDD`, or a date-time `YYYYMMDDTHHMMSS[Z]`. */
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/;

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** The `YYYY-MM-DD` of fields, or null when they name no calendar date (or time of day). */
function dateOf(fields: readonly (string | undefined)[]): string | null {
  const [year, month, day, hour = '0', minute = '0', second = '0'] = fields.map((field) => (field === undefined ? undefined : Number(field)));
  if (year === undefined || month === undefined || day === undefined || year < 1) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  // Date.UTC rolls 2025-02-30 over to March: a date is valid when it reads back unchanged.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** True for a valid `YYYY-MM-DD`. */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  return match !== null && dateOf(match.slice(1)) !== null;
}

/** The local date an input item names (`YYYY-MM-DD`, `YYYYMMDD` or a date-time of either form), or null. */
export function localDateOf(text: string): string | null {
  const match = DASHED.exec(text) ?? COMPACT.exec(text);
  return match === null ? null : dateOf(match.slice(1));
}

/** The UTC midnight standing for a `YYYY-MM-DD`. */
export function dateToUtc(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

/** The `YYYY-MM-DD` of a UTC midnight (or of any instant's UTC date). */
export function utcToDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return utcToDate(new Date(dateToUtc(date).getTime() + days * DAY_MS));
}

export function addYears(date: string, years: number): string {
  const at = dateToUtc(date);
  at.setUTCFullYear(at.getUTCFullYear() + years);
  return utcToDate(at);
}

/** `YYYYMMDD`, the form of a DATE value in RRULE text. */
export function compactDate(date: string): string {
  return date.replaceAll('-', '');
}

/** The sorted, duplicate-free union of sorted lists. */
export function sortedUnion(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort();
}

/**
 * Exdates or rdates as stored: every item read as a local date, sorted, without duplicates.
 * Throws a RecurrenceError naming the list (`EXDATE`/`RDATE`) and the first item it cannot read.
 */
export function normaliseDates(items: readonly unknown[] | undefined, name: string, max: number): string[] {
  if (items === undefined) return [];
  if (!Array.isArray(items)) throw new RecurrenceError(`recurrence: ${name} must be a list of dates.`);
  if (items.length > max) throw new RecurrenceError(`recurrence: at most ${max} ${name} dates are allowed.`);
  const dates = items.map((item) => {
    const date = typeof item === 'string' ? localDateOf(item.trim()) : null;
    if (date === null) throw new RecurrenceError(`recurrence: ${name} ${JSON.stringify(item)} is not a date (YYYY-MM-DD).`);
    return date;
  });
  return sortedUnion(dates);
}
