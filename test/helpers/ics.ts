/**
 * iCalendar text read back with ical.js, a parser independent of the code that wrote it: times are
 * converted to instants with the VTIMEZONE components of the text itself (ical.js looks a TZID up
 * in the calendar it parses), so a missing or wrong VTIMEZONE shows as a wrong instant.
 */
import ICAL from 'ical.js';

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

export interface IcsTime {
  /** The instant: for a date, 00:00 UTC of that date. */
  instant: Date;
  /** `YYYY-MM-DD` of a date (VALUE=DATE); null for a date-time. */
  date: string | null;
  /** The TZID parameter; null for UTC (`Z`) times and dates. */
  tzid: string | null;
  /** The value as written (`20300330T200000`, `20300330T180000Z`, `20300330`). */
  raw: string;
}

export interface IcsEvent {
  uid: string;
  summary: string;
  start: IcsTime;
  end: IcsTime;
  component: Component;
  /** The first value of a property, as text (null when absent). */
  text(name: string): string | null;
  /** Every value of every instance of a property (CATEGORIES may hold several). */
  values(name: string): string[];
  /** A parameter of a property's first instance. */
  parameter(property: string, name: string): string | null;
}

export interface IcsCalendar {
  root: Component;
  /** The calendar's own properties, first value of each, as text. */
  property(name: string): string | null;
  events: IcsEvent[];
  /** TZIDs of the VTIMEZONE components. */
  timezones: string[];
}

function timeOf(component: Component, name: string): IcsTime {
  const property = component.getFirstProperty(name);
  if (property === null) throw new Error(`no ${name}`);
  const time = property.getFirstValue() as Time;
  const tzid = property.getParameter('tzid');
  const raw = (property.toICALString().split(':').at(-1) ?? '').trim();
  if (time.isDate) {
    const date = `${String(time.year).padStart(4, '0')}-${String(time.month).padStart(2, '0')}-${String(time.day).padStart(2, '0')}`;
    return { instant: new Date(`${date}T00:00:00Z`), date, tzid: null, raw };
  }
  return { instant: new Date(time.toUnixTime() * 1000), date: null, tzid: typeof tzid === 'string' ? tzid : null, raw };
}

/** A parsed value as text: times and durations as ical.js writes them, GEO as `[lat,lon]`. */
const asText = (value: unknown): string => (Array.isArray(value) ? JSON.stringify(value) : String(value));

export function parseIcs(text: string): IcsCalendar {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const events = root.getAllSubcomponents('vevent').map((component): IcsEvent => {
    const first = (name: string) => component.getFirstPropertyValue(name);
    return {
      uid: String(first('uid')),
      summary: String(first('summary')),
      start: timeOf(component, 'dtstart'),
      end: timeOf(component, 'dtend'),
      component,
      text: (name) => {
        const value = first(name);
        return value === null ? null : asText(value);
      },
      values: (name) => component.getAllProperties(name).flatMap((p) => p.getValues().map(asText)),
      parameter: (property, name) => {
        const value = component.getFirstProperty(property)?.getParameter(name);
        return value === undefined || value === null ? null : String(value);
      },
    };
  });
  return {
    root,
    property: (name) => {
      const value = root.getFirstPropertyValue(name);
      return value === null ? null : asText(value);
    },
    events,
    timezones: root.getAllSubcomponents('vtimezone').map((zone) => String(zone.getFirstPropertyValue('tzid'))),
  };
}

/** The content lines of iCalendar text, each as its octets, and whether every line ends in CRLF. */
export function contentLines(text: string): { lines: Buffer[]; crlf: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  const crlf = text.endsWith('\r\n') && !/[^\r]\n|\r[^\n]/.test(text);
  const lines = text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => Buffer.from(line, 'utf8'));
  return { lines: bytes.length === 0 ? [] : lines, crlf };
}

/** iCalendar text unfolded (RFC 5545 §3.1): a CRLF followed by one space or tab is removed. */
export function unfold(text: string): string {
  return text.replace(/\r\n[ \t]/g, '');
}
