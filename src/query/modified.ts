/**
 * `modified_after` and `modified_before` (incremental sync, docs/api.md "Incremental sync"): the
 * records whose representation changed within a window. Pure: the clock, the site time zone and
 * the ids of linked records are inputs.
 *
 * A record's modification time is `modifiedUtc`, or later the instant a scheduled (`future`)
 * record became public: that changes what every reader sees (its status, and for anonymous callers
 * whether it is listed at all) without any write. For an event, the scheduled publication of its
 * venue or organizers counts too, since the event embeds them. So "modified at or after A" is
 * `modifiedUtc ≥ A`, or a scheduled publication that fell between A and now; "modified at or
 * before B" is `modifiedUtc ≤ B` with no scheduled publication after B that has already happened.
 *
 * Both bounds are inclusive at the API's resolution, whole seconds (`modified_utc` shows no more):
 * `modified_after=10:00:05` includes a change at 10:00:05.700, and so does `modified_before`.
 */
import { formatWallClock, parseDateInput } from '../lib/dates/index.js';
import { type Filter } from '../storage/port.js';

export const MODIFIED_PARAMS = ['modified_after', 'modified_before'] as const;
export type ModifiedParam = (typeof MODIFIED_PARAMS)[number];

/** The bounds as whole-second instants: `after` ≤ change, change < `before` + 1 s. */
export interface ModifiedBounds {
  after?: Date;
  before?: Date;
}

export interface ResolvedModified {
  bounds: ModifiedBounds;
  /** Parameters that could not be read as dates (a 400 naming them). */
  invalid: ModifiedParam[];
  /** The effective bounds, as site-time-zone wall clocks, for `rest_url`. */
  echo: Array<[ModifiedParam, string]>;
}

const SECOND = 1000;
const wholeSecond = (at: Date): Date => new Date(Math.floor(at.getTime() / SECOND) * SECOND);

/** Reads the parameters like the other date parameters (absolute, or relative to `now`). */
export function resolveModified(raw: Partial<Record<ModifiedParam, string | number>>, ctx: { now: Date; siteTimezone: string }): ResolvedModified {
  const resolved: ResolvedModified = { bounds: {}, invalid: [], echo: [] };
  for (const param of MODIFIED_PARAMS) {
    const value = raw[param];
    if (value === undefined) continue;
    const instant = parseDateInput(value, { timezone: ctx.siteTimezone, now: ctx.now });
    if (instant === null) {
      resolved.invalid.push(param);
      continue;
    }
    const bound = wholeSecond(instant);
    resolved.bounds[param === 'modified_after' ? 'after' : 'before'] = bound;
    resolved.echo.push([param, formatWallClock(bound, ctx.siteTimezone)]);
  }
  return resolved;
}

export const hasModifiedBounds = (bounds: ModifiedBounds): boolean => bounds.after !== undefined || bounds.before !== undefined;

/**
 * The scheduled publications the window cares about, as `[from, to]` ranges of `dateUtc` (`now`
 * to the whole second, as the status filter reads it, src/query/status.ts): those from `after` to
 * now make a record modified after `after`; those after `before` up to now make it modified after
 * `before`. A range that is empty is left out.
 */
export function publicationRanges(bounds: ModifiedBounds, now: Date): { after?: [Date, Date]; before?: [Date, Date] } {
  const until = wholeSecond(now);
  const ranges: { after?: [Date, Date]; before?: [Date, Date] } = {};
  if (bounds.after !== undefined && bounds.after <= until) ranges.after = [bounds.after, until];
  const past = bounds.before === undefined ? undefined : new Date(bounds.before.getTime() + SECOND);
  if (past !== undefined && past <= until) ranges.before = [past, until];
  return ranges;
}

/** Records of a collection whose scheduled publication fell within `[from, to]`. */
export function scheduledWithin([from, to]: [Date, Date]): Filter {
  return { status: 'future', dateUtc: { $gte: from, $lte: to } };
}

/**
 * The filter clauses of the window. `late.after` / `late.before`: clauses matching the records
 * whose representation a scheduled publication changed within the ranges of `publicationRanges`
 * (the record's own, and for events those of its linked records). Without them, each bound is one
 * range on `modifiedUtc`, which the {status, modifiedUtc, _id} indexes serve in order.
 */
export function modifiedClauses(bounds: ModifiedBounds, late: { after?: Filter[]; before?: Filter[] } = {}): Filter[] {
  const clauses: Filter[] = [];
  if (bounds.after !== undefined) {
    const changed: Filter = { modifiedUtc: { $gte: bounds.after } };
    clauses.push(late.after?.length ? { $or: [changed, ...late.after] } : changed);
  }
  if (bounds.before !== undefined) {
    const clause: Filter = { modifiedUtc: { $lt: new Date(bounds.before.getTime() + SECOND) } };
    if (late.before?.length) clause.$nor = late.before;
    clauses.push(clause);
  }
  return clauses;
}
