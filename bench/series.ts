/**
 * Recurring events for the bench calendar (bench/calendar.ts, `--series 1000x100`): series written
 * straight into the storage as the series service stores them (docs/recurrence.md) — the series
 * document (the template event, its rule as src/lib/recurrence/ normalises it, `nextDate`), then
 * one event per date of its set built by the service's own `occurrenceDoc` (slug `<series slug>-
 * <date>`, `postParent` = `seriesId` = the series' id, `occurrenceDate`, its own start and end at
 * the series' local start time), up to the horizon the service writes to.
 *
 * The rules vary as people write them: a weekly class, a biweekly pair of weekdays, a monthly run of
 * weekends chosen by weekday (first and third Friday to Sunday), and a daily run closed on Mondays
 * (half of them all-day, like an exhibition). Each ends by COUNT, the occurrences asked for; a
 * series starts on a date of its rule, spread over the calendar's span like the single events,
 * so that its whole set fits before the calendar's end when it can.
 */
import { wallClockToInstant } from '../src/lib/dates/index.js';
import { occurrenceDates, parseRecurrence } from '../src/lib/recurrence/index.js';
import { searchTermsOf } from '../src/lib/text.js';
import { horizonDate, occurrenceDoc } from '../src/services/recurrence/schedule.js';
import { type EventDoc, type SeriesDoc, type Storage } from '../src/storage/port.js';

export interface SeriesOptions {
  count: number;
  /** Occurrences per series (the rules' COUNT). */
  occurrences: number;
}

/** `1000x100`: 1,000 series of 100 occurrences each. */
export function parseSeriesOption(text: string): SeriesOptions {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  const count = Number(match?.[1]);
  const occurrences = Number(match?.[2]);
  if (match === null || count < 1 || occurrences < 1) throw new Error(`--series takes <series>x<occurrences each>, e.g. 1000x100 (got "${text}")`);
  return { count, occurrences };
}

/** What a series is made of: the calendar's records and vocabulary (bench/calendar.ts). */
export interface SeriesInputs {
  series: SeriesOptions;
  now: Date;
  from: Date;
  to: Date;
  /** RECURRENCE_HORIZON_DAYS: occurrences are written up to today plus this many days. */
  horizonDays: number;
  random: () => number;
  venues: ReadonlyArray<{ id: number; timezone: string }>;
  organizerIds: readonly number[];
  categoryIds: readonly number[];
  tagIds: readonly number[];
  /** Title words and description sentences. */
  words: { kinds: readonly string[]; topics: readonly string[]; adjectives: readonly string[]; sentences: readonly string[] };
  utcZones: boolean;
}

export interface GeneratedSeries {
  seriesIds: number[];
  /** Occurrence events written. */
  occurrences: number;
}

const DAY = 86_400_000;
const DAY_CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const;

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const pad = (n: number): string => String(n).padStart(2, '0');

interface RuleShape {
  name: 'weekly' | 'biweekly' | 'monthly' | 'daily';
  /** The RRULE for a series starting on `date` (a UTC midnight standing for the local date). */
  rrule: (date: Date, count: number) => string;
  /** The first date on or after `date` that the rule matches. */
  align: (date: Date) => Date;
  /** Days from the first occurrence to the last, about. */
  spanDays: (count: number) => number;
}

/** The first of `weekday` (0 = Sunday) in the month of `date`, or in the next month when that is before `date`. */
function firstWeekdayOfMonth(date: Date, weekday: number): Date {
  for (let month = 0; month < 2; month++) {
    const first = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + month, 1));
    const candidate = new Date(first.getTime() + ((weekday - first.getUTCDay() + 7) % 7) * DAY);
    if (candidate.getTime() >= date.getTime()) return candidate;
  }
  throw new Error('unreachable: a month has every weekday');
}

const SHAPES: readonly RuleShape[] = [
  {
    name: 'weekly',
    rrule: (date, count) => `FREQ=WEEKLY;BYDAY=${DAY_CODES[date.getUTCDay()]};COUNT=${count}`,
    align: (date) => date,
    spanDays: (count) => 7 * count,
  },
  {
    name: 'biweekly',
    rrule: (date, count) => `FREQ=WEEKLY;INTERVAL=2;BYDAY=${DAY_CODES[date.getUTCDay()]},${DAY_CODES[(date.getUTCDay() + 2) % 7]};COUNT=${count}`,
    align: (date) => date,
    spanDays: (count) => 7 * count,
  },
  {
    // The first and third weekend of the month, Friday to Sunday, each day named by its weekday.
    name: 'monthly',
    rrule: (_date, count) => `FREQ=MONTHLY;BYDAY=1FR,1SA,1SU,3FR,3SA,3SU;COUNT=${count}`,
    align: (date) => firstWeekdayOfMonth(date, 5),
    spanDays: (count) => Math.ceil((31 * count) / 6) + 31,
  },
  {
    name: 'daily',
    rrule: (_date, count) => `FREQ=DAILY;BYDAY=TU,WE,TH,FR,SA,SU;COUNT=${count}`,
    align: (date) => (date.getUTCDay() === 1 ? new Date(date.getTime() + DAY) : date),
    spanDays: (count) => Math.ceil((7 * count) / 6) + 7,
  },
];

/** The template of series number `n`: an event like the calendar's single events (bench/calendar.ts). */
function template(inputs: SeriesInputs, n: number, id: number, shape: RuleShape, first: Date): EventDoc {
  const { random, words } = inputs;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const pickSkewed = <T>(items: readonly T[]): T => items[Math.floor(items.length * random() ** 2)]!;
  const venue = random() < 0.9 ? pick(inputs.venues) : null;
  const timezone = venue === null || inputs.utcZones ? 'UTC' : venue.timezone;
  const allDay = shape.name === 'daily' && random() < 0.5;
  const date = isoDate(first.getTime());
  // Local start on the quarter hour between 08:00 and 20:45, lasting one to three hours.
  const minutes = 8 * 60 + 15 * Math.floor(random() * 52);
  const hours = 1 + Math.floor(random() * 3);
  const startWall = allDay ? `${date} 00:00:00` : `${date} ${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}:00`;
  const endMinutes = minutes + hours * 60;
  const endWall = allDay ? `${date} 23:59:59` : `${date} ${pad(Math.floor(endMinutes / 60))}:${pad(endMinutes % 60)}:00`;
  const topic = pickSkewed(words.topics);
  const title = `${shape.name === 'daily' ? 'Daily' : shape.name.replace(/^./, (c) => c.toUpperCase())} ${topic} ${pickSkewed(words.kinds)}`;
  const description = `<p>${pick(words.sentences)} ${title} with ${pick(words.topics)} and ${pick(words.topics)}. ${pick(words.sentences)}</p>`;
  const excerpt = `${pick(words.adjectives)} ${topic}`;
  const startUtc = wallClockToInstant(startWall, timezone);
  const published = new Date(startUtc.getTime() - 30 * DAY);
  const organizers = new Set<number>();
  for (let k = Math.floor(random() * 3); k > 0; k--) organizers.add(pick(inputs.organizerIds));
  const categories = new Set<number>();
  for (let k = 1 + Math.floor(random() * 3); k > 0; k--) categories.add(pickSkewed(inputs.categoryIds));
  const tags = new Set<number>();
  for (let k = Math.floor(random() * 5); k > 0; k--) tags.add(pickSkewed(inputs.tagIds));
  return {
    _id: id,
    slug: `series-${n + 1}`,
    status: random() < 0.95 ? 'publish' : 'draft',
    authorId: 1,
    dateUtc: published,
    modifiedUtc: published,
    description,
    excerpt,
    image: null,
    searchTerms: searchTermsOf(title, description, excerpt),
    title,
    startUtc,
    endUtc: wallClockToInstant(endWall, timezone),
    timezone,
    allDay,
    cost: random() < 0.5 ? [] : [String(5 * (1 + Math.floor(random() * 10)))],
    currencySymbol: '$',
    currencyPosition: 'prefix',
    website: null,
    showMap: true,
    showMapLink: true,
    hideFromListings: false,
    sticky: false,
    featured: random() < 0.05,
    ticketed: random() < 0.3,
    postParent: null,
    venueId: venue?.id ?? null,
    organizerIds: [...organizers],
    categoryIds: [...categories],
    tagIds: [...tags],
    password: null,
  };
}

/**
 * Writes the series and their occurrences into `storage` (ids from the posts sequence, after the
 * single events'); the caller builds the indexes afterwards.
 */
export async function generateSeries(storage: Storage, inputs: SeriesInputs): Promise<GeneratedSeries> {
  const { count, occurrences } = inputs.series;
  const seriesIds: number[] = [];
  let written = 0;
  for (let n = 0; n < count; n++) {
    const shape = SHAPES[n % SHAPES.length]!;
    const room = Math.max(0, inputs.to.getTime() - inputs.from.getTime() - shape.spanDays(occurrences) * DAY);
    const day = Math.floor((inputs.from.getTime() + inputs.random() * room) / DAY) * DAY;
    const first = shape.align(new Date(day));
    const id = await storage.nextId('posts');
    const event = template(inputs, n, id, shape, first);
    const startDate = isoDate(first.getTime());
    const recurrence = parseRecurrence({ rrule: shape.rrule(first, occurrences) }, startDate, { maxOccurrences: Math.max(occurrences, 1000) });
    const horizon = horizonDate(inputs.now, inputs.horizonDays, event.timezone);
    const dates = occurrenceDates(recurrence, startDate);
    const due = dates.filter((date) => date <= horizon);
    const series: SeriesDoc = { ...event, recurrence, nextDate: dates.find((date) => date > horizon) ?? null };
    await storage.series.insertOne(series);
    if (due.length > 0) {
      const firstId = await storage.nextId('posts', due.length);
      const failures = await storage.events.insertMany(due.map((date, k) => occurrenceDoc(series, firstId + k, date)));
      if (failures.length > 0) throw new Error(`series ${series.slug}: ${failures.length} occurrences not stored`);
    }
    seriesIds.push(id);
    written += due.length;
  }
  return { seriesIds, occurrences: written };
}
