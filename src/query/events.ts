/**
 * The event list compiler: validated, resolved list
 * parameters → CompiledQuery plus the effective values echoed in `rest_url`. Pure: the clock, the
 * site time zone and every id lookup are inputs.
 */
import { endOfLocalDay, formatWallClock, parseDateInput, startOfLocalDay } from '../lib/dates/index.js';
import { searchWords, textSearchOf } from '../lib/text.js';
import { type CompiledQuery, type Filter, type PostStatus, type Sort } from '../storage/port.js';
import { type Paging, resolvePaging } from './paging.js';
import { statusFilter } from './status.js';

export const DATE_PARAMS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
export type DateParam = (typeof DATE_PARAMS)[number];
const RELATIVE: readonly DateParam[] = ['starts_before', 'starts_after', 'ends_before', 'ends_after'];

export const EVENT_ORDER_BY = ['start_date', 'end_date', 'date', 'modified', 'id'] as const;
export type EventOrderBy = (typeof EVENT_ORDER_BY)[number];

/** Everything the compiler needs, already validated and resolved to ids by the service. */
export interface EventListInput {
  page?: number;
  perPage?: number;
  dates: Partial<Record<DateParam, string | number>>;
  /** `strict_dates` as sent; strict iff 1/true/on/yes in any case. */
  strictDates?: string;
  /** modified_after or modified_before was given (src/query/modified.ts): no default date window. */
  modifiedWindow?: boolean;
  search?: string;
  /** Category ids with their descendants already expanded. */
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  ticketed?: boolean;
  statuses: PostStatus[];
  include?: number[];
  postParent?: number;
  orderBy?: EventOrderBy;
  order?: 1 | -1;
  /** Extra filter clauses (e.g. geolocation), and-ed with the rest. */
  extra?: Filter[];
}

export interface CompileContext {
  now: Date;
  siteTimezone: string;
  perPageMax: number;
}

export interface CompiledEventList {
  query: CompiledQuery;
  paging: Paging;
  /** Effective date bounds, as site-time-zone wall clocks, for `rest_url`. */
  effectiveDates: Partial<Record<DateParam, string>>;
  /** Date parameters that could not be parsed (the service turns them into a 400). */
  invalidDates: DateParam[];
}

const TRUTHY = new Set(['1', 'true', 'on', 'yes']);

export function isStrict(strictDates: string | undefined): boolean {
  return strictDates !== undefined && TRUTHY.has(strictDates.trim().toLowerCase());
}

const SORT_FIELD: Record<EventOrderBy, string> = {
  start_date: 'startUtc',
  end_date: 'endUtc',
  date: 'dateUtc',
  modified: 'modifiedUtc',
  id: '_id',
};

/** How each date parameter compares with the events' instants. */
const COMPARISON: Record<DateParam, [field: 'startUtc' | 'endUtc', op: '$gte' | '$lte' | '$gt' | '$lt']> = {
  start_date: ['startUtc', '$gte'],
  end_date: ['endUtc', '$lte'],
  starts_after: ['startUtc', '$gt'],
  starts_before: ['startUtc', '$lt'],
  ends_after: ['endUtc', '$gt'],
  ends_before: ['endUtc', '$lt'],
};

/**
 * The date bounds as instants. Inclusive mode (the default) widens `start_date` to 00:00:00 of its
 * day and every other bound to 23:59:59 of its day, in the site time zone; strict mode keeps the
 * instants. Without relative parameters the defaults apply: start ≥ 00:00 yesterday, end ≤ 23:59:59
 * of the day 24 months from now; relative parameters drop the defaults of what was not given, and
 * so does a modification window (modified_after / modified_before); `include` drops them all.
 */
export function dateBounds(input: EventListInput, ctx: CompileContext): { bounds: Partial<Record<DateParam, Date>>; invalid: DateParam[] } {
  const bounds: Partial<Record<DateParam, Date>> = {};
  const invalid: DateParam[] = [];
  const strict = isStrict(input.strictDates);
  for (const param of DATE_PARAMS) {
    const raw = input.dates[param];
    if (raw === undefined) continue;
    const instant = parseDateInput(raw, { timezone: ctx.siteTimezone, now: ctx.now });
    if (instant === null) {
      invalid.push(param);
      continue;
    }
    bounds[param] = strict ? instant : param === 'start_date' ? startOfLocalDay(instant, ctx.siteTimezone) : endOfLocalDay(instant, ctx.siteTimezone);
  }
  // Every date is still validated (a junk date is a 400), but none of them filters.
  if (input.include !== undefined) return { bounds: {}, invalid };
  const relative = RELATIVE.some((p) => input.dates[p] !== undefined);
  // A sync asks for what changed, whenever the events take place.
  if (!relative && input.modifiedWindow !== true) {
    if (input.dates.start_date === undefined) {
      // The calendar day before today's: `now - 24 h` lands two days back in the first hour after a
      // 23-hour (spring-forward) day.
      const endOfYesterday = new Date(startOfLocalDay(ctx.now, ctx.siteTimezone).getTime() - 1);
      bounds.start_date = startOfLocalDay(endOfYesterday, ctx.siteTimezone);
    }
    if (input.dates.end_date === undefined) {
      // The end of that day, as the reference's sample shows (`end_date=… 23:59:59`): the window —
      // and so every link — stays the same all day instead of moving every second.
      const end = new Date(ctx.now);
      end.setUTCMonth(end.getUTCMonth() + 24);
      bounds.end_date = endOfLocalDay(end, ctx.siteTimezone);
    }
  }
  return { bounds, invalid };
}

export function compileEventList(input: EventListInput, ctx: CompileContext): CompiledEventList {
  const clauses: Filter[] = [statusFilter(input.statuses, ctx.now), { hideFromListings: false }];
  const { bounds, invalid } = dateBounds(input, ctx);
  const effectiveDates: Partial<Record<DateParam, string>> = {};
  for (const param of DATE_PARAMS) {
    const bound = bounds[param];
    if (bound === undefined) continue;
    const [field, op] = COMPARISON[param];
    clauses.push({ [field]: { [op]: bound } });
    effectiveDates[param] = formatWallClock(bound, ctx.siteTimezone);
  }
  if (input.search !== undefined) {
    clauses.push({ $text: { $search: textSearchOf(input.search) }, searchTerms: { $all: searchWords(input.search) } });
  }
  if (input.categoryIds !== undefined) clauses.push({ categoryIds: { $in: input.categoryIds } });
  if (input.tagIds !== undefined) clauses.push({ tagIds: { $in: input.tagIds } });
  if (input.venueIds !== undefined) clauses.push({ venueId: { $in: input.venueIds } });
  if (input.organizerIds !== undefined) clauses.push({ organizerIds: { $in: input.organizerIds } });
  if (input.featured !== undefined) clauses.push({ featured: input.featured });
  if (input.ticketed !== undefined) clauses.push({ ticketed: input.ticketed });
  if (input.postParent !== undefined) clauses.push({ postParent: input.postParent });
  if (input.include !== undefined) clauses.push({ _id: { $in: input.include } });
  clauses.push(...(input.extra ?? []));

  const direction = input.order ?? 1;
  const field = SORT_FIELD[input.orderBy ?? 'start_date'];
  const sort: Sort =
    field === '_id'
      ? [['_id', direction]]
      : [
          [field, direction],
          ['_id', direction],
        ];
  const paging = resolvePaging(input.page, input.perPage, ctx.perPageMax);
  return {
    query: { filter: { $and: clauses }, sort, skip: paging.skip, limit: paging.perPage },
    paging,
    effectiveDates,
    invalidDates: invalid,
  };
}
