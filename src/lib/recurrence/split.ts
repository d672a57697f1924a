/**
 * Editing a stored series: splitting it at a date into two series whose occurrences together are
 * the original's, and excluding one occurrence.
 */
import { normaliseDates, RecurrenceError, sortedUnion } from './dates.js';
import { checkDate, combine, dayBefore, MAX_DATE_LIST, type RecurrenceRule, ruleDates } from './expand.js';
import { parseRule, type RuleParts, ruleText } from './rule.js';

const ALL = Number.POSITIVE_INFINITY;

/**
 * The first half of a split: the series ending the day before `date` (a COUNT that would reach
 * past it becomes UNTIL=<day before>), with the exdates and rdates before `date`; null when no
 * occurrence would remain before `date`.
 */
export function ruleUntilBefore(rule: RecurrenceRule, startDate: string, date: string): RecurrenceRule | null {
  checkDate(startDate, 'start date');
  checkDate(date, 'split date');
  const parts = parseRule(rule.rrule);
  const before = dayBefore(date);
  const exdates = rule.exdates.filter((d) => d < date);
  const rdates = rule.rdates.filter((d) => d < date);
  const { dates } = ruleDates(parts, startDate, ALL);
  if (combine(dates, { exdates, rdates }).filter((d) => d < date).length === 0) return null;
  // A rule ending before `date` is kept as it is; otherwise it now ends the day before.
  const endsBefore = dates.length === 0 || (dates.at(-1) as string) < date;
  const text = endsBefore ? rule.rrule : ruleText({ ...parts, count: null, until: { date: before, time: null } });
  return { rrule: text, exdates, rdates };
}

/**
 * The parts a rule takes from its start date when it names no day (as rrule.js and RFC 5545
 * do): written out, so that the rule means the same from another start date.
 */
function explicitDays(parts: RuleParts, startDate: string): RuleParts {
  const named = parts.byWeekNo.length + parts.byYearDay.length + parts.byMonthDay.length + parts.byDay.length > 0;
  if (named || parts.freq === 'DAILY') return parts;
  const [, month, day] = startDate.split('-').map(Number) as [number, number, number];
  if (parts.freq === 'WEEKLY') return { ...parts, byDay: [{ n: 0, day: (new Date(`${startDate}T00:00:00Z`).getUTCDay() + 6) % 7 }] };
  if (parts.freq === 'MONTHLY') return { ...parts, byMonthDay: [day] };
  return { ...parts, byMonth: parts.byMonth.length > 0 ? parts.byMonth : [month], byMonthDay: [day] };
}

/** The end of the second half: COUNT less the rule dates before `date`, or UNTIL no earlier than `date`. */
function restartedEnd(parts: RuleParts, ruleDateList: readonly string[], date: string): Pick<RuleParts, 'count' | 'until'> {
  if (parts.count === null) {
    const until = parts.until !== null && parts.until.date < date ? { date, time: null } : parts.until;
    return { count: null, until };
  }
  const earlier = ruleDateList.filter((d) => d < date).length;
  // The new start date is the new rule's first date: it counts once more when the old rule lacked it.
  const remaining = parts.count - earlier + (ruleDateList.includes(date) ? 0 : 1);
  return { count: Math.max(1, remaining), until: null };
}

/**
 * The second half of a split, restarted at `date`: the same rule (the days it took from the old
 * start date written out), COUNT less the occurrences before `date`, the exdates and rdates
 * from `date` on, and `date` itself excluded unless it was an occurrence. Throws a
 * RecurrenceError when nothing remains from `date`, or when an INTERVAL counted from `date`
 * would shift the dates.
 */
export function ruleFrom(rule: RecurrenceRule, startDate: string, date: string): RecurrenceRule {
  checkDate(startDate, 'start date');
  checkDate(date, 'split date');
  const parts = parseRule(rule.rrule);
  const { dates } = ruleDates(parts, startDate, ALL);
  const wanted = combine(dates, rule).filter((d) => d >= date);
  if (wanted.length === 0) throw new RecurrenceError(`recurrence: the series has no occurrence from ${date} on.`);
  const restarted: RuleParts = { ...explicitDays(parts, startDate), ...restartedEnd(parts, dates, date) };
  const exdates = rule.exdates.filter((d) => d >= date);
  const result: RecurrenceRule = {
    rrule: ruleText(restarted),
    exdates: wanted[0] === date ? exdates : sortedUnion(exdates, [date]),
    rdates: rule.rdates.filter((d) => d >= date),
  };
  const got = combine(ruleDates(restarted, date, ALL).dates, result);
  if (got.length !== wanted.length || got.some((d, i) => d !== wanted[i])) {
    throw new RecurrenceError(`recurrence: the series cannot restart on ${date}: its INTERVAL counts from ${startDate}.`);
  }
  return result;
}

/** The rule with one more exdate (deleting one occurrence). */
export function withExdate(rule: RecurrenceRule, date: string): RecurrenceRule {
  const [added] = normaliseDates([date], 'EXDATE', 1);
  const exdates = sortedUnion(rule.exdates, [added as string]);
  if (exdates.length > MAX_DATE_LIST) throw new RecurrenceError(`recurrence: at most ${MAX_DATE_LIST} EXDATE dates are allowed.`);
  return { ...rule, exdates };
}
