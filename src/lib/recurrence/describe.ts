/**
 * A recurrence in words. English is rrule.js's toText (which leaves BYSETPOS out: it is added
 * here); German and French come from the small describer below, which builds the same sentence
 * shape from a table of words per language: frequency and interval, months, days, COUNT or UNTIL,
 * then how many dates the exdates remove and the rdates add.
 */
import rrulePkg from 'rrule';
import { dateToUtc } from './dates.js';
import { checkDate, type RecurrenceRule } from './expand.js';
import { type ByDay, type Frequency, parseRule, type RuleParts, rruleOptions } from './rule.js';

const { RRule } = rrulePkg;

export type DescribeLanguage = 'en' | 'de' | 'fr';

interface Words {
  every: (freq: Frequency, interval: number) => string;
  /** A list joined the language's way: `a, b and c`. */
  and: string;
  weekdays: readonly string[];
  months: readonly string[];
  /** One BYDAY item: `Dienstag`, `2. Dienstag`, `le dernier vendredi`. */
  byDay: (by: ByDay) => string;
  /** The BYDAY phrase around the joined items. */
  onDays: (items: string) => string;
  monthDay: (n: number) => string;
  onMonthDays: (items: string) => string;
  inMonths: (items: string) => string;
  /** YEARLY in one month on some days: `am 1. und 15. März`. */
  onDate: (days: string, month: string) => string;
  weekNo: (items: string) => string;
  yearDay: (n: number) => string;
  setPos: (n: number) => string;
  onSetPos: (items: string) => string;
  count: (n: number) => string;
  until: (day: number, month: string, year: number) => string;
  except: (n: number) => string;
  plus: (n: number) => string;
}

const UNITS_DE: Record<Frequency, [one: string, many: string]> = {
  DAILY: ['jeden Tag', 'Tage'],
  WEEKLY: ['jede Woche', 'Wochen'],
  MONTHLY: ['jeden Monat', 'Monate'],
  YEARLY: ['jedes Jahr', 'Jahre'],
};
const ordinalDe = (n: number, last: string): string => (n > 0 ? `${n}.` : n === -1 ? last : n === -2 ? `vor${last}` : `${-n}.-${last}`);

const GERMAN: Words = {
  every: (freq, interval) => (interval === 1 ? UNITS_DE[freq][0] : `alle ${interval} ${UNITS_DE[freq][1]}`),
  and: 'und',
  weekdays: ['Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag', 'Sonntag'],
  months: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
  byDay: (by) => (by.n === 0 ? GERMAN.weekdays[by.day] : `${ordinalDe(by.n, 'letzten')} ${GERMAN.weekdays[by.day]}`) as string,
  onDays: (items) => `am ${items}`,
  monthDay: (n) => (n > 0 ? `${n}.` : `${ordinalDe(n, 'letzten')} Tag`),
  onMonthDays: (items) => `am ${items}`,
  inMonths: (items) => `im ${items}`,
  onDate: (days, month) => `am ${days} ${month}`,
  weekNo: (items) => `in Kalenderwoche ${items}`,
  yearDay: (n) => `${ordinalDe(n, 'letzten')} Tag des Jahres`,
  setPos: (n) => ordinalDe(n, 'letzte'),
  onSetPos: (items) => `jeweils nur der ${items} Termin`,
  count: (n) => `${n} Mal`,
  until: (day, month, year) => `bis zum ${day}. ${month} ${year}`,
  except: (n) => (n === 1 ? 'außer 1 Termin' : `außer ${n} Terminen`),
  plus: (n) => (n === 1 ? 'zusätzlich 1 Termin' : `zusätzlich ${n} Termine`),
};

const UNITS_FR: Record<Frequency, [one: string, many: string]> = {
  DAILY: ['chaque jour', 'tous les # jours'],
  WEEKLY: ['chaque semaine', 'toutes les # semaines'],
  MONTHLY: ['chaque mois', 'tous les # mois'],
  YEARLY: ['chaque année', 'tous les # ans'],
};
/** `le 2e mardi`, `le dernier vendredi`, `l’avant-dernier jour`, `le 3e jour avant la fin`. */
function theNthFr(n: number, noun: string, feminine = false): string {
  if (n === -1) return `${feminine ? 'la dernière' : 'le dernier'} ${noun}`;
  if (n === -2) return `${feminine ? 'l’avant-dernière' : 'l’avant-dernier'} ${noun}`;
  const first = feminine ? '1re' : '1er';
  return n > 0 ? `${feminine ? 'la' : 'le'} ${n === 1 ? first : `${n}e`} ${noun}` : `${feminine ? 'la' : 'le'} ${-n}e ${noun} avant la fin`;
}
const dayFr = (day: number): string => (day === 1 ? '1er' : String(day));

const FRENCH: Words = {
  every: (freq, interval) => (interval === 1 ? UNITS_FR[freq][0] : UNITS_FR[freq][1].replace('#', String(interval))),
  and: 'et',
  weekdays: ['lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche'],
  months: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
  byDay: (by) => (by.n === 0 ? `le ${FRENCH.weekdays[by.day]}` : theNthFr(by.n, FRENCH.weekdays[by.day] as string)),
  onDays: (items) => items,
  monthDay: (n) => (n > 0 ? `le ${dayFr(n)}` : theNthFr(n, 'jour')),
  onMonthDays: (items) => items,
  inMonths: (items) => `en ${items}`,
  onDate: (days, month) => `${days} ${month}`,
  weekNo: (items) => `la semaine n° ${items}`,
  yearDay: (n) => `${theNthFr(n, 'jour')} de l’année`,
  setPos: (n) => theNthFr(n, 'occurrence', true),
  onSetPos: (items) => `seulement ${items} de chaque période`,
  count: (n) => `${n} fois`,
  until: (day, month, year) => `jusqu’au ${dayFr(day)} ${month} ${year}`,
  except: (n) => (n === 1 ? 'sauf 1 date' : `sauf ${n} dates`),
  plus: (n) => (n === 1 ? 'plus 1 date supplémentaire' : `plus ${n} dates supplémentaires`),
};

function join(items: readonly string[], and: string): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${and} ${items.at(-1) as string}`;
}

/** The day phrase: one yearly date, or the BYYEARDAY, BYMONTHDAY and BYDAY phrases. */
function dayPhrases(parts: RuleParts, words: Words): string[] {
  const phrases: string[] = [];
  const oneMonth = parts.freq === 'YEARLY' && parts.byMonth.length === 1 && parts.byDay.length === 0;
  if (oneMonth && parts.byMonthDay.length > 0 && parts.byMonthDay.every((n) => n > 0)) {
    const days = join(parts.byMonthDay.map(words.monthDay), words.and);
    return [words.onDate(days, words.months[(parts.byMonth[0] as number) - 1] as string)];
  }
  if (parts.byMonth.length > 0)
    phrases.push(
      words.inMonths(
        join(
          parts.byMonth.map((m) => words.months[m - 1] as string),
          words.and,
        ),
      ),
    );
  if (parts.byWeekNo.length > 0) phrases.push(words.weekNo(join(parts.byWeekNo.map(String), words.and)));
  if (parts.byYearDay.length > 0) phrases.push(join(parts.byYearDay.map(words.yearDay), words.and));
  if (parts.byMonthDay.length > 0) phrases.push(words.onMonthDays(join(parts.byMonthDay.map(words.monthDay), words.and)));
  if (parts.byDay.length > 0) phrases.push(words.onDays(join(parts.byDay.map(words.byDay), words.and)));
  return phrases;
}

function endPhrase(parts: RuleParts, words: Words): string {
  if (parts.count !== null) return `, ${words.count(parts.count)}`;
  if (parts.until === null) return '';
  const [year, month, day] = parts.until.date.split('-').map(Number) as [number, number, number];
  return ` ${words.until(day, words.months[month - 1] as string, year)}`;
}

function describeParts(parts: RuleParts, words: Words): string {
  const head = [words.every(parts.freq, parts.interval), ...dayPhrases(parts, words)].join(' ');
  const setPos = parts.bySetPos.length > 0 ? `, ${words.onSetPos(join(parts.bySetPos.map(words.setPos), words.and))}` : '';
  return `${head}${setPos}${endPhrase(parts, words)}`;
}

const ENGLISH_SET_POS = (n: number): string => {
  if (n === -1) return 'last';
  if (n < -1) return `${englishOrdinal(-n)} to last`;
  return englishOrdinal(n);
};
function englishOrdinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

function describeEnglish(parts: RuleParts, startDate: string): string {
  const rule = new RRule({
    ...rruleOptions(parts),
    dtstart: dateToUtc(startDate),
    count: parts.count,
    until: parts.until === null ? null : dateToUtc(parts.until.date),
  });
  const text = rule.toText();
  if (parts.bySetPos.length === 0) return text;
  return `${text} (only the ${join(parts.bySetPos.map(ENGLISH_SET_POS), 'and')} occurrence in each period)`;
}

const LISTS: Record<DescribeLanguage, Pick<Words, 'except' | 'plus'>> = {
  en: { except: (n) => `except ${n} ${n === 1 ? 'date' : 'dates'}`, plus: (n) => `plus ${n} ${n === 1 ? 'date' : 'dates'}` },
  de: GERMAN,
  fr: FRENCH,
};

/** The recurrence in words in English, German or French, with the counts of its exdates and rdates. */
export function describeRecurrence(rule: RecurrenceRule, startDate: string, language: DescribeLanguage): string {
  checkDate(startDate, 'start date');
  const parts = parseRule(rule.rrule);
  const text = language === 'en' ? describeEnglish(parts, startDate) : describeParts(parts, language === 'de' ? GERMAN : FRENCH);
  const lists = LISTS[language] ?? LISTS.en;
  const extras = [rule.exdates.length > 0 ? lists.except(rule.exdates.length) : null, rule.rdates.length > 0 ? lists.plus(rule.rdates.length) : null].filter(
    (extra) => extra !== null,
  );
  return [text, ...extras].join(', ');
}
