/**
 * The recurrence library case by case: validation and normalisation, each refusal, expansion
 * (including the rules the ical.js comparison leaves out), splitting, exdates, the text in three
 * languages, and the RRULE of an iCalendar feed.
 */
import { describe, expect, it } from 'vitest';
import {
  describeRecurrence,
  icsRrule,
  occurrenceDates,
  parseRecurrence,
  RecurrenceError,
  type RecurrenceInput,
  type RecurrenceRule,
  ruleFrom,
  ruleUntilBefore,
  withExdate,
} from '../../../src/lib/recurrence/index.js';

const MAX = { maxOccurrences: 100 };
const parse = (input: RecurrenceInput | string, start = '2025-01-01', options = MAX): RecurrenceRule =>
  parseRecurrence(typeof input === 'string' ? { rrule: input } : input, start, options);
const dates = (rrule: string, start = '2025-01-01', extra: Omit<RecurrenceInput, 'rrule'> = {}): string[] =>
  occurrenceDates(parse({ rrule, ...extra }, start), start);

/** The RecurrenceError `run` throws; fails when it throws nothing or something else. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RecurrenceError);
    return (error as RecurrenceError).message;
  }
  throw new Error('expected a RecurrenceError');
}

describe('parseRecurrence', () => {
  it('normalises the rule: prefix and case on input, rrule.js’s canonical text out', () => {
    expect(parse('rrule:freq=weekly;byday=tu;count=10')).toEqual({ rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=10', exdates: [], rdates: [] });
    expect(parse(' RRULE:COUNT=3;BYDAY=2tu;FREQ=MONTHLY; ').rrule).toBe('FREQ=MONTHLY;BYDAY=+2TU;COUNT=3');
    expect(parse('FREQ=WEEKLY;INTERVAL=1;WKST=MO;COUNT=2').rrule).toBe('FREQ=WEEKLY;COUNT=2');
    expect(parse('FREQ=WEEKLY;WKST=SU;INTERVAL=2;BYDAY=MO,FR;COUNT=4').rrule).toBe('FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=MO,FR;COUNT=4');
    expect(parse('FREQ=MONTHLY;BYMONTHDAY=-1,15;BYSETPOS=1;COUNT=2').rrule).toBe('FREQ=MONTHLY;BYMONTHDAY=-1,15;BYSETPOS=1;COUNT=2');
  });

  it('keeps UNTIL as a DATE when given as one, and a date-time in rrule.js’s UTC form', () => {
    expect(parse('FREQ=DAILY;UNTIL=20250105').rrule).toBe('FREQ=DAILY;UNTIL=20250105');
    expect(parse('FREQ=DAILY;UNTIL=20250105T083000').rrule).toBe('FREQ=DAILY;UNTIL=20250105T083000Z');
    expect(parse('FREQ=DAILY;UNTIL=20250105t000000z').rrule).toBe('FREQ=DAILY;UNTIL=20250105T000000Z');
    // Its local date counts, inclusive, whatever the time.
    for (const until of ['20250105', '20250105T000000', '20250105T235959Z']) {
      expect(dates(`FREQ=DAILY;UNTIL=${until}`).at(-1)).toBe('2025-01-05');
    }
  });

  it('normalises exdates and rdates: every accepted form, sorted, unique', () => {
    const rule = parse({
      rrule: 'FREQ=DAILY;COUNT=30',
      exdates: ['2025-01-09', '20250103', '2025-01-05T10:00', '2025-01-05 10:00:30', '20250107T100000Z', '20250103T100000'],
      rdates: ['2025-03-01', '2025-02-15'],
    });
    expect(rule.exdates).toEqual(['2025-01-03', '2025-01-05', '2025-01-07', '2025-01-09']);
    expect(rule.rdates).toEqual(['2025-02-15', '2025-03-01']);
  });

  it.each([
    ['FREQ=HOURLY;COUNT=2', 'FREQ=HOURLY is not supported: at most one occurrence per day.'],
    ['FREQ=MINUTELY;COUNT=2', 'FREQ=MINUTELY is not supported'],
    ['FREQ=SECONDLY;COUNT=2', 'FREQ=SECONDLY is not supported'],
    ['FREQ=DAILY;BYHOUR=9;COUNT=2', 'BYHOUR is not supported'],
    ['FREQ=DAILY;BYMINUTE=0;COUNT=2', 'BYMINUTE is not supported'],
    ['FREQ=DAILY;BYSECOND=0;COUNT=2', 'BYSECOND is not supported'],
    ['DTSTART:20250101T000000Z\nRRULE:FREQ=DAILY;COUNT=2', 'single RRULE line'],
    ['FREQ=DAILY;COUNT=2;DTSTART=20250101', 'DTSTART is not allowed'],
    ['FREQ=DAILY;COUNT=2;TZID=Europe/Berlin', 'TZID is not allowed'],
    ['FREQ=DAILY', 'the rule must end: give COUNT or UNTIL'],
    ['FREQ=DAILY;COUNT=2;UNTIL=20250301', 'COUNT and UNTIL cannot both be given'],
    ['COUNT=2', 'FREQ is required'],
    ['FREQ=FORTNIGHTLY;COUNT=2', 'FREQ=FORTNIGHTLY is not valid'],
    ['FREQ=DAILY;COUNT=2;COLOR=red', 'unknown rule part COLOR'],
    ['FREQ=DAILY;COUNT=2;COUNT=3', 'COUNT is given twice'],
    ['FREQ=DAILY;COUNT', 'is not a NAME=VALUE rule part'],
    ['FREQ=DAILY;COUNT=abc', 'COUNT=ABC is not valid'],
    ['FREQ=DAILY;COUNT=0', 'COUNT=0 is not valid'],
    ['FREQ=DAILY;INTERVAL=-2;COUNT=2', 'INTERVAL=-2 is not valid'],
    ['FREQ=DAILY;UNTIL=20250230', 'UNTIL=20250230 is not valid'],
    ['FREQ=DAILY;UNTIL=20250201T250000', 'has no valid time of day'],
    ['FREQ=DAILY;UNTIL=20241231', 'UNTIL (2024-12-31) is before the start date'],
    ['FREQ=YEARLY;UNTIL=21250102', 'must be within 100 years'],
    ['FREQ=WEEKLY;BYDAY=XX;COUNT=2', 'BYDAY=XX is not valid'],
    ['FREQ=WEEKLY;BYDAY=2TU;COUNT=2', 'an ordinal weekday needs FREQ=MONTHLY or FREQ=YEARLY'],
    ['FREQ=MONTHLY;BYDAY=6TU;COUNT=2', 'the ordinal must be 1…5'],
    ['FREQ=WEEKLY;BYMONTHDAY=2;COUNT=2', 'BYMONTHDAY is not allowed with FREQ=WEEKLY'],
    ['FREQ=MONTHLY;BYMONTHDAY=32;COUNT=2', 'BYMONTHDAY=32 is not valid'],
    ['FREQ=MONTHLY;BYMONTH=13;COUNT=2', 'BYMONTH=13 is not valid'],
    ['FREQ=MONTHLY;BYYEARDAY=100;COUNT=2', 'BYYEARDAY needs FREQ=YEARLY'],
    ['FREQ=MONTHLY;BYWEEKNO=10;COUNT=2', 'BYWEEKNO needs FREQ=YEARLY'],
    ['FREQ=YEARLY;BYYEARDAY=100;BYMONTH=4;COUNT=2', 'BYYEARDAY cannot be combined'],
    ['FREQ=YEARLY;BYWEEKNO=10;BYMONTHDAY=4;COUNT=2', 'BYWEEKNO cannot be combined with BYMONTHDAY'],
    ['FREQ=MONTHLY;BYSETPOS=1;COUNT=2', 'BYSETPOS needs another BY… rule part'],
    ['FREQ=WEEKLY;WKST=XX;COUNT=2', 'WKST=XX is not valid'],
    ['', 'the rule (RRULE) is missing'],
    ['FREQ=DAILY;COUNT=101', 'more than 100 occurrences'],
    ['FREQ=DAILY;UNTIL=20250411', 'more than 100 occurrences'],
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;COUNT=2', 'does not reach COUNT=2 occurrences within 100 years'],
  ])('refuses %j', (rrule, sentence) => {
    const message = refusal(() => parse(rrule));
    expect(message.startsWith('recurrence: ')).toBe(true);
    expect(message).toContain(sentence);
  });

  it('refuses bad exdates, rdates and start dates, and a series without occurrences', () => {
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=2', exdates: ['next week'] }))).toBe('recurrence: EXDATE "next week" is not a date (YYYY-MM-DD).');
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=2', rdates: ['2025-02-30'] }))).toContain('RDATE "2025-02-30"');
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=2', rdates: ['2025-01-01T10:00:00Z'] }))).toContain('is not a date');
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=2', rdates: ['2024-12-31'] }))).toContain('RDATE 2024-12-31 is before the start date');
    const many = Array.from({ length: 1001 }, (_, i) => `2025-01-0${(i % 9) + 1}`);
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=2', exdates: many }))).toContain('at most 1000 EXDATE dates');
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=2', exdates: ['2025-01-01', '2025-01-02'] }))).toContain('no occurrence');
    expect(refusal(() => parse('FREQ=DAILY;COUNT=2', '2025-1-1'))).toContain('the start date "2025-1-1" is not a date');
  });

  it('counts the whole set against maxOccurrences: exdates make room, rdates take it', () => {
    const exdates = ['2025-01-02', '2025-01-03'];
    expect(occurrenceDates(parse({ rrule: 'FREQ=DAILY;COUNT=102', exdates }), '2025-01-01')).toHaveLength(100);
    expect(refusal(() => parse({ rrule: 'FREQ=DAILY;COUNT=100', rdates: ['2026-01-01'] }))).toContain('more than 100');
    expect(parse({ rrule: 'FREQ=DAILY;COUNT=99', rdates: ['2026-01-01'] }).rdates).toEqual(['2026-01-01']);
  });

  it('refuses a rule that never matches quickly', () => {
    const started = performance.now();
    expect(parse('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;UNTIL=21241231').rrule).toContain('BYMONTHDAY=30');
    expect(refusal(() => parse('FREQ=DAILY;INTERVAL=2;BYMONTH=4;BYMONTHDAY=31;COUNT=3'))).toContain('does not reach COUNT=3');
    expect(refusal(() => parse('FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6;COUNT=3'))).toContain('does not reach COUNT=3');
    // rrule.js alone searches such a rule up to the year 9999.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('occurrenceDates', () => {
  it('counts the start date as the first occurrence, matched by the rule or not', () => {
    // 2025-01-01 is a Wednesday.
    expect(dates('FREQ=WEEKLY;BYDAY=TU;COUNT=3')).toEqual(['2025-01-01', '2025-01-07', '2025-01-14']);
    expect(dates('FREQ=WEEKLY;BYDAY=WE;COUNT=3')).toEqual(['2025-01-01', '2025-01-08', '2025-01-15']);
    expect(dates('FREQ=MONTHLY;BYDAY=2TU;UNTIL=20250401')).toEqual(['2025-01-01', '2025-01-14', '2025-02-11', '2025-03-11']);
    expect(dates('FREQ=YEARLY;COUNT=1')).toEqual(['2025-01-01']);
  });

  it('adds rdates, removes exdates from rule dates and rdates alike', () => {
    const extra = { exdates: ['2025-01-02', '2025-01-10'], rdates: ['2025-01-03', '2025-01-10', '2025-01-20'] };
    expect(dates('FREQ=DAILY;COUNT=3', '2025-01-01', extra)).toEqual(['2025-01-01', '2025-01-03', '2025-01-20']);
  });

  it('returns the dates within a range, inclusive', () => {
    const rule = parse('FREQ=DAILY;COUNT=10');
    expect(occurrenceDates(rule, '2025-01-01', { from: '2025-01-04', to: '2025-01-06' })).toEqual(['2025-01-04', '2025-01-05', '2025-01-06']);
    expect(occurrenceDates(rule, '2025-01-01', { from: '2025-01-09' })).toEqual(['2025-01-09', '2025-01-10']);
    expect(occurrenceDates(rule, '2025-01-01', { to: '2025-01-02' })).toEqual(['2025-01-01', '2025-01-02']);
    expect(occurrenceDates(rule, '2025-01-01', { from: '2025-02-01' })).toEqual([]);
  });

  it('expands as RFC 5545 says where ical.js does not', () => {
    // BYSETPOS in a weekly rule: the last of each week's Monday and Tuesday.
    expect(dates('FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=-1;COUNT=3', '2025-01-06')).toEqual(['2025-01-06', '2025-01-07', '2025-01-14']);
    // BYSETPOS in a yearly rule: the year's first Monday of January and February.
    expect(dates('FREQ=YEARLY;BYMONTH=1,2;BYDAY=MO;BYSETPOS=1;COUNT=3', '2025-01-06')).toEqual(['2025-01-06', '2026-01-05', '2027-01-04']);
    // The last working day of the month.
    expect(dates('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3', '2025-01-31')).toEqual(['2025-01-31', '2025-02-28', '2025-03-31']);
    // BYMONTH limits a weekly and a monthly rule.
    expect(dates('FREQ=WEEKLY;BYDAY=MO;BYMONTH=1;UNTIL=20250301', '2025-01-27')).toEqual(['2025-01-27']);
    expect(dates('FREQ=MONTHLY;BYMONTHDAY=7;BYMONTH=1;COUNT=2', '2025-09-06')).toEqual(['2025-09-06', '2026-01-07']);
    // Invalid dates are skipped, not rolled over.
    expect(dates('FREQ=YEARLY;COUNT=3', '2024-02-29')).toEqual(['2024-02-29', '2028-02-29', '2032-02-29']);
    expect(dates('FREQ=MONTHLY;COUNT=3', '2025-01-31')).toEqual(['2025-01-31', '2025-03-31', '2025-05-31']);
    expect(dates('FREQ=YEARLY;BYMONTH=9,10;BYMONTHDAY=31;COUNT=2', '2025-01-01')).toEqual(['2025-01-01', '2025-10-31']);
    // A yearly BYMONTHDAY without BYMONTH is that day of every month; negative days count from the month's end.
    expect(dates('FREQ=YEARLY;BYMONTHDAY=-1;COUNT=3', '2025-01-01')).toEqual(['2025-01-01', '2025-01-31', '2025-02-28']);
    // Friday the 13th; a daily rule with a negative BYMONTHDAY.
    expect(dates('FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=3', '2025-01-01')).toEqual(['2025-01-01', '2025-06-13', '2026-02-13']);
    expect(dates('FREQ=DAILY;BYMONTHDAY=-1;COUNT=3', '2025-01-01')).toEqual(['2025-01-01', '2025-01-31', '2025-02-28']);
  });

  it('reads weekdays with and without an ordinal each as matching days', () => {
    expect(dates('FREQ=MONTHLY;BYDAY=5TU,FR;COUNT=4', '2024-12-31')).toEqual(['2024-12-31', '2025-01-03', '2025-01-10', '2025-01-17']);
    expect(dates('FREQ=MONTHLY;BYDAY=-1MO,FR;UNTIL=20250131', '2025-01-24')).toEqual(['2025-01-24', '2025-01-27', '2025-01-31']);
  });

  it('takes a day that two BYSETPOS positions pick once, and counts it once', () => {
    expect(dates('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYSETPOS=-2,-1;COUNT=3', '2025-01-06')).toEqual(['2025-01-06', '2025-01-20', '2025-02-03']);
  });
});

describe('splitting a series', () => {
  const rule = parse({ rrule: 'FREQ=MONTHLY;BYDAY=2TU;COUNT=6', exdates: ['2025-02-11'], rdates: ['2025-01-20', '2025-05-01'] });
  // 2025-01-01, (01-14, 01-20 rdate), [02-11 excluded], 03-11, 04-08, 05-01 rdate, 05-13

  it('ends the first half the day before, COUNT turned into UNTIL', () => {
    expect(ruleUntilBefore(rule, '2025-01-01', '2025-04-08')).toEqual({
      rrule: 'FREQ=MONTHLY;BYDAY=+2TU;UNTIL=20250407',
      exdates: ['2025-02-11'],
      rdates: ['2025-01-20'],
    });
    // A rule ending before the date is kept.
    expect(ruleUntilBefore(rule, '2025-01-01', '2025-06-01')?.rrule).toBe(rule.rrule);
    expect(ruleUntilBefore(rule, '2025-01-01', '2025-01-01')).toBeNull();
    const startExcluded = parse({ rrule: 'FREQ=WEEKLY;COUNT=3', exdates: ['2025-01-01'] });
    expect(ruleUntilBefore(startExcluded, '2025-01-01', '2025-01-08')).toBeNull();
  });

  it('restarts the second half with the COUNT left and the later exdates and rdates', () => {
    expect(ruleFrom(rule, '2025-01-01', '2025-04-08')).toEqual({ rrule: 'FREQ=MONTHLY;BYDAY=+2TU;COUNT=2', exdates: [], rdates: ['2025-05-01'] });
    expect(occurrenceDates(ruleFrom(rule, '2025-01-01', '2025-03-11'), '2025-03-11')).toEqual(['2025-03-11', '2025-04-08', '2025-05-01', '2025-05-13']);
  });

  it('writes out the day a rule took from its start date, and excludes a restart date that was no occurrence', () => {
    const weekly = parse('FREQ=WEEKLY;COUNT=4');
    expect(ruleFrom(weekly, '2025-01-01', '2025-01-10')).toEqual({ rrule: 'FREQ=WEEKLY;BYDAY=WE;COUNT=3', exdates: ['2025-01-10'], rdates: [] });
    const yearly = parse('FREQ=YEARLY;UNTIL=20300101');
    expect(ruleFrom(yearly, '2025-01-01', '2027-01-01').rrule).toBe('FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1;UNTIL=20300101');
    expect(ruleFrom(parse('FREQ=MONTHLY;COUNT=5', '2025-01-15'), '2025-01-15', '2025-03-15').rrule).toBe('FREQ=MONTHLY;BYMONTHDAY=15;COUNT=3');
  });

  it('refuses to restart where nothing remains, or out of step with INTERVAL', () => {
    expect(refusal(() => ruleFrom(rule, '2025-01-01', '2025-06-01'))).toBe('recurrence: the series has no occurrence from 2025-06-01 on.');
    const everyOther = parse('FREQ=DAILY;INTERVAL=2;COUNT=5');
    expect(refusal(() => ruleFrom(everyOther, '2025-01-01', '2025-01-04'))).toContain('cannot restart on 2025-01-04');
    expect(occurrenceDates(ruleFrom(everyOther, '2025-01-01', '2025-01-05'), '2025-01-05')).toEqual(['2025-01-05', '2025-01-07', '2025-01-09']);
  });
});

describe('withExdate', () => {
  it('adds one exdate, normalised, sorted and unique', () => {
    const rule = parse({ rrule: 'FREQ=DAILY;COUNT=5', exdates: ['2025-01-04'] });
    expect(withExdate(rule, '20250102').exdates).toEqual(['2025-01-02', '2025-01-04']);
    expect(withExdate(rule, '2025-01-04T09:00').exdates).toEqual(['2025-01-04']);
    expect(occurrenceDates(withExdate(rule, '2025-01-03'), '2025-01-01')).toEqual(['2025-01-01', '2025-01-02', '2025-01-05']);
    expect(refusal(() => withExdate(rule, 'tomorrow'))).toContain('EXDATE "tomorrow"');
  });
});

describe('describeRecurrence', () => {
  const text = (rrule: string, extra: Omit<RecurrenceInput, 'rrule'> = {}) => {
    const rule = parse({ rrule, ...extra });
    return (['en', 'de', 'fr'] as const).map((language) => describeRecurrence(rule, '2025-01-01', language));
  };

  it('describes the common rules in English, German and French', () => {
    expect(text('FREQ=WEEKLY;BYDAY=TU;COUNT=10')).toEqual([
      'every week on Tuesday for 10 times',
      'jede Woche am Dienstag, 10 Mal',
      'chaque semaine le mardi, 10 fois',
    ]);
    expect(text('FREQ=DAILY;INTERVAL=3;UNTIL=20250301')).toEqual([
      'every 3 days until March 1, 2025',
      'alle 3 Tage bis zum 1. März 2025',
      'tous les 3 jours jusqu’au 1er mars 2025',
    ]);
    expect(text('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;COUNT=6')).toEqual([
      'every 2 weeks on Monday, Wednesday, Friday for 6 times',
      'alle 2 Wochen am Montag, Mittwoch und Freitag, 6 Mal',
      'toutes les 2 semaines le lundi, le mercredi et le vendredi, 6 fois',
    ]);
    expect(text('FREQ=MONTHLY;BYDAY=2TU;COUNT=3')).toEqual([
      'every month on the 2nd Tuesday for 3 times',
      'jeden Monat am 2. Dienstag, 3 Mal',
      'chaque mois le 2e mardi, 3 fois',
    ]);
    expect(text('FREQ=MONTHLY;BYDAY=-1FR;COUNT=3')).toEqual([
      'every month on the last Friday for 3 times',
      'jeden Monat am letzten Freitag, 3 Mal',
      'chaque mois le dernier vendredi, 3 fois',
    ]);
    expect(text('FREQ=MONTHLY;BYMONTHDAY=1,-1;COUNT=4')).toEqual([
      'every month on the 1st and last for 4 times',
      'jeden Monat am 1. und letzten Tag, 4 Mal',
      'chaque mois le 1er et le dernier jour, 4 fois',
    ]);
    expect(text('FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=14;COUNT=5')).toEqual([
      'every July on the 14th for 5 times',
      'jedes Jahr am 14. Juli, 5 Mal',
      'chaque année le 14 juillet, 5 fois',
    ]);
    expect(text('FREQ=YEARLY;INTERVAL=2;BYMONTH=3;BYDAY=1SU;COUNT=2')).toEqual([
      'every 2 years March on the 1st Sunday for 2 times',
      'alle 2 Jahre im März am 1. Sonntag, 2 Mal',
      'tous les 2 ans en mars le 1er dimanche, 2 fois',
    ]);
  });

  it('mentions BYSETPOS and the counts of exdates and rdates', () => {
    expect(text('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3')).toEqual([
      'every month on weekdays for 3 times (only the last occurrence in each period)',
      'jeden Monat am Montag, Dienstag, Mittwoch, Donnerstag und Freitag, jeweils nur der letzte Termin, 3 Mal',
      'chaque mois le lundi, le mardi, le mercredi, le jeudi et le vendredi, seulement la dernière occurrence de chaque période, 3 fois',
    ]);
    expect(text('FREQ=DAILY;COUNT=10', { exdates: ['2025-01-02', '2025-01-03'], rdates: ['2025-02-01'] })).toEqual([
      'every day for 10 times, except 2 dates, plus 1 date',
      'jeden Tag, 10 Mal, außer 2 Terminen, zusätzlich 1 Termin',
      'chaque jour, 10 fois, sauf 2 dates, plus 1 date supplémentaire',
    ]);
  });
});

describe('icsRrule', () => {
  it('keeps COUNT, and writes UNTIL in the form of DTSTART', () => {
    const counted = parse('FREQ=WEEKLY;BYDAY=TU;COUNT=10');
    expect(icsRrule(counted, '2025-01-01', '18:30:00', false)).toBe('FREQ=WEEKLY;BYDAY=TU;COUNT=10');
    const until = parse('FREQ=MONTHLY;BYDAY=2TU;UNTIL=20250610T120000Z');
    expect(icsRrule(until, '2025-01-01', '18:30:00', true)).toBe('FREQ=MONTHLY;BYDAY=+2TU;UNTIL=20250610');
    expect(icsRrule(until, '2025-01-01', '18:30:00', false)).toBe('FREQ=MONTHLY;BYDAY=+2TU;UNTIL=20250610T183000');
    // With the zone: the end of the last local date, in UTC (Berlin is at UTC+2 in June, New York at UTC-4).
    expect(icsRrule(until, '2025-01-01', '18:30:00', false, 'Europe/Berlin')).toBe('FREQ=MONTHLY;BYDAY=+2TU;UNTIL=20250610T215959Z');
    expect(icsRrule(until, '2025-01-01', '18:30:00', false, 'America/New_York')).toBe('FREQ=MONTHLY;BYDAY=+2TU;UNTIL=20250611T035959Z');
  });

  it('refuses a start time that is not HH:MM:SS', () => {
    expect(refusal(() => icsRrule(parse('FREQ=DAILY;COUNT=2'), '2025-01-01', '18:30', false))).toContain('the start time "18:30"');
  });
});
