/**
 * An event's DTSTART and DTEND as ical-generator takes them:
 *
 * - all-day events as dates, the first day and the day after the last (DTEND is exclusive), in the
 *   event's own zone;
 * - other events in their IANA zone with its TZID, where the zone's VTIMEZONE reads both times back
 *   as the stored instants (vtimezone.ts);
 * - every other time in UTC (`Z`): events in `UTC` or a `UTC±N` offset, zones without a VTIMEZONE,
 *   and the times a VTIMEZONE would misread.
 *
 * Local times are given to ical-generator as objects of its Temporal.ZonedDateTime interface
 * (ICalTemporalZonedDateTimeStub), built from the service's own zone rules: it then writes their
 * fields as they are, where it would convert a Date with the process's zone, and a luxon
 * DateTime would cost a zone lookup and a format per time.
 */
import {
  type ICalTemporalInstantStub,
  type ICalTemporalPlainDateStub,
  type ICalTemporalPlainDateTimeStub,
  type ICalTemporalZonedDateTimeStub,
} from 'ical-generator';
import { utcOffsetMinutes, wallAsUtcMs, type WallFields, wallFieldsOf, zoneRules } from '../../lib/dates/index.js';
import { type EventDoc } from '../../storage/port.js';
import { readsBack, type ZoneDefinition, zoneDefinition } from './vtimezone.js';

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
const dateText = (f: WallFields): string => `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}`;
const timeText = (f: WallFields): string => `${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;

/** A calendar date (Temporal.PlainDate). */
class PlainDay implements ICalTemporalPlainDateStub {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  constructor(private readonly wall: WallFields) {
    ({ year: this.year, month: this.month, day: this.day } = wall);
  }
  toPlainDateTime(): PlainWallClock {
    return new PlainWallClock({ ...this.wall, hour: 0, minute: 0, second: 0 }, null);
  }
  toJSON(): string {
    return dateText(this.wall);
  }
  toString(): string {
    return this.toJSON();
  }
}

/** A local time without a zone (Temporal.PlainDateTime), remembering the zoned time it came from. */
class PlainWallClock implements ICalTemporalPlainDateTimeStub {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  constructor(
    private readonly wall: WallFields,
    private readonly zoned: ZonedWallClock | null,
  ) {
    ({ year: this.year, month: this.month, day: this.day, hour: this.hour, minute: this.minute, second: this.second } = wall);
  }
  toPlainDate(): PlainDay {
    return new PlainDay(this.wall);
  }
  toZonedDateTime(timeZone: string): ICalTemporalZonedDateTimeStub {
    if (this.zoned === null || timeZone !== this.zoned.timeZoneId) throw new RangeError(`No reading of this local time in ${timeZone}`);
    return this.zoned;
  }
  toJSON(): string {
    return `${dateText(this.wall)}T${timeText(this.wall)}`;
  }
  toString(): string {
    return this.toJSON();
  }
}

/** An instant (Temporal.Instant). */
function instant(ms: number): ICalTemporalInstantStub {
  return {
    epochMilliseconds: ms,
    toJSON: () => new Date(ms).toISOString(),
    toString: () => new Date(ms).toISOString(),
    toZonedDateTimeISO: (timeZone) => {
      if (timeZone !== 'UTC') throw new RangeError(`No reading of this instant in ${timeZone}`);
      return new ZonedWallClock(ms, wallFieldsOf(new Date(ms), zoneRules('UTC')), 'UTC');
    },
  };
}

/** An instant with its local time in a zone (Temporal.ZonedDateTime). */
class ZonedWallClock implements ICalTemporalZonedDateTimeStub {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  constructor(
    private readonly ms: number,
    private readonly wall: WallFields,
    readonly timeZoneId: string,
  ) {
    ({ year: this.year, month: this.month, day: this.day, hour: this.hour, minute: this.minute, second: this.second } = wall);
  }
  toInstant(): ICalTemporalInstantStub {
    return instant(this.ms);
  }
  toPlainDateTime(): PlainWallClock {
    return new PlainWallClock(this.wall, this);
  }
  withTimeZone(timeZone: string): ICalTemporalZonedDateTimeStub {
    return timeZone === this.timeZoneId ? this : instant(this.ms).toZonedDateTimeISO(timeZone);
  }
  toJSON(): string {
    return `${dateText(this.wall)}T${timeText(this.wall)}[${this.timeZoneId}]`;
  }
  toString(): string {
    return this.toJSON();
  }
}

export interface EventTimes {
  start: Date | ZonedWallClock;
  end: Date | ZonedWallClock;
  /** The TZID of zoned times; null for UTC times and dates. */
  timezone: string | null;
  /** The zone's definition, whose VTIMEZONE the calendar must hold; null without a TZID. */
  zone: ZoneDefinition | null;
  allDay: boolean;
}

/** The local date of an instant in a zone, as the Date at 00:00 UTC of that date (ical-generator writes its UTC date). */
function dayOf(at: Date, timezone: string, plusDays = 0): Date {
  const f = wallFieldsOf(at, zoneRules(timezone));
  const day = new Date(0);
  day.setUTCFullYear(f.year, f.month - 1, f.day + plusDays);
  return day;
}

/**
 * The times of an event as the feed writes them. `asDates`: all-day events as dates; a protected
 * event shown without its password hides whether it is all-day (the list's redaction), and is
 * written with its instants.
 */
export function eventTimes(doc: EventDoc, asDates: boolean): EventTimes {
  const { startUtc, endUtc, timezone } = doc;
  if (asDates) {
    const start = dayOf(startUtc, timezone);
    const end = dayOf(endUtc, timezone, 1);
    return { start, end: end > start ? end : dayOf(startUtc, timezone, 1), timezone: null, zone: null, allDay: true };
  }
  const zone = timezone === 'UTC' || utcOffsetMinutes(timezone) !== null ? null : zoneDefinition(timezone);
  if (zone !== null) {
    const rules = zoneRules(timezone);
    const [start, end] = [startUtc, endUtc].map((at) => {
      const wall = wallFieldsOf(at, rules);
      return readsBack(zone, wallAsUtcMs(wall), at.getTime()) ? new ZonedWallClock(at.getTime(), wall, zone.tzid) : null;
    });
    if (start && end) return { start, end, timezone: zone.tzid, zone, allDay: false };
  }
  return { start: startUtc, end: endUtc, timezone: null, zone: null, allDay: false };
}
