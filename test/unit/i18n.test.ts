/**
 * Translations: one flat JSON file per language in src/i18n/;
 * every key present and non-empty in every language with the same placeholders, no language with
 * keys the others lack, every description of every schema module keyed, and a message for every
 * error code (so nothing stays English under /de or /fr).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { messageKeysOf, untranslatedDescriptions } from '../../src/docs/schema-text.js';
import { ERROR_CODES } from '../../src/errors.js';
import {
  I18N_KEYWORD,
  LANGUAGES,
  MESSAGES,
  formatDuration,
  formatMessage,
  i18n,
  languageOfRoot,
  languageOfUrl,
  placeholdersOf,
  translate,
} from '../../src/i18n/index.js';
import * as common from '../../src/schemas/common.js';
import * as discovery from '../../src/schemas/discovery.js';
import * as events from '../../src/schemas/events.js';
import * as organizers from '../../src/schemas/organizers.js';
import * as terms from '../../src/schemas/terms.js';
import * as venues from '../../src/schemas/venues.js';

const I18N_DIR = fileURLToPath(new URL('../../src/i18n/', import.meta.url));

/** The language files as they are on disk (not through the module), to catch stray files too. */
function readLanguageFiles(): Record<string, Record<string, unknown>> {
  const files = readdirSync(I18N_DIR).filter((f) => f.endsWith('.json'));
  return Object.fromEntries(files.map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(`${I18N_DIR}${f}`, 'utf8')) as Record<string, unknown>]));
}

/** Every exported value of the schema modules (schemas, helpers' results, property maps). */
const SCHEMA_MODULES = { common, discovery, events, organizers, terms, venues };
const exportedSchemas = Object.entries(SCHEMA_MODULES).flatMap(([module, exports]) =>
  Object.entries(exports)
    .filter(([, value]) => value !== null && typeof value === 'object')
    .map(([name, value]) => [`${module}.${name}`, value] as const),
);

/** Identifiers and error codes a translation must keep verbatim (`geoloc_lat`, `rest_forbidden`, `PER_PAGE_MAX`). */
const verbatimTokens = (text: string): string[] => [...new Set(text.match(/\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b|\brest-[a-z-]+\b/g) ?? [])];

describe('translation files', () => {
  const files = readLanguageFiles();
  const english = files.en as Record<string, unknown>;

  it('exist for exactly the languages the service serves', () => {
    expect(Object.keys(files).sort()).toEqual([...LANGUAGES].sort());
  });

  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s has every English key and no other', (language) => {
    const keys = Object.keys(files[language] ?? {});
    const missing = Object.keys(english).filter((k) => !keys.includes(k));
    const extra = keys.filter((k) => !(k in english));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it.each(LANGUAGES)('%s has no empty or non-string text', (language) => {
    const bad = Object.entries(files[language] ?? {}).filter(([, text]) => typeof text !== 'string' || text.trim() === '');
    expect(bad).toEqual([]);
  });

  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s keeps parameter names and error codes verbatim', (language) => {
    const lost = Object.entries(english).flatMap(([key, text]) =>
      verbatimTokens(String(text))
        .filter((token) => !String(files[language]?.[key]).includes(token))
        .map((token) => `${key}: ${token}`),
    );
    expect(lost).toEqual([]);
  });

  /** Texts that are the same words in that language ("Slug"; French "Description (HTML)", "Province", "{count} minute"). */
  const SAME_AS_ENGLISH: Record<string, string[]> = {
    de: ['common.slug'],
    fr: ['common.slug', 'field.description', 'field.province', 'duration.minutes.one', 'duration.minutes.other'],
  };

  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s has the placeholders of the English text in every text', (language) => {
    const differing = Object.entries(english)
      .filter(([key, text]) => placeholdersOf((files[language]?.[key] as string | undefined) ?? '').join() !== placeholdersOf(String(text)).join())
      .map(([key]) => key);
    expect(differing).toEqual([]);
  });

  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s is translated, not copied (apart from words that are the same)', (language) => {
    const same = Object.keys(english).filter((k) => files[language]?.[k] === english[k]);
    expect(same).toEqual(SAME_AS_ENGLISH[language]);
  });

  it('are the files the module serves', () => {
    expect(MESSAGES).toEqual(files);
  });
});

describe('schema descriptions', () => {
  it('are all keyed: no description without its message key', () => {
    const untranslated = exportedSchemas.flatMap(([name, schema]) => untranslatedDescriptions(schema, name));
    expect(untranslated).toEqual([]);
  });

  it('use existing keys, and the English text is the one in en.json', () => {
    const used = new Set(exportedSchemas.flatMap(([, schema]) => messageKeysOf(schema)));
    expect([...used].filter((key) => !(key in MESSAGES.en))).toEqual([]);
    expect(used.size).toBeGreaterThan(100);
  });

  it('i18n(key) gives the English text and the key', () => {
    expect(i18n('event.title')).toEqual({ description: 'Event title', [I18N_KEYWORD]: 'event.title' });
  });
});

describe('languages of the roots', () => {
  it.each([
    ['', 'en'],
    ['/en', 'en'],
    ['/de', 'de'],
    ['/fr', 'fr'],
  ] as const)('root "%s" is %s', (root, language) => {
    expect(languageOfRoot(root)).toBe(language);
  });

  it('translate falls back to English only for a key a language lacks', () => {
    expect(translate('de', 'event.title')).toBe('Titel der Veranstaltung');
    expect(translate('fr', 'event.title')).toBe("Titre de l'événement");
    expect(translate('de', 'no.such.key')).toBeUndefined();
  });
});

describe('error messages', () => {
  const keys = Object.keys(MESSAGES.en).filter((key) => key.startsWith('errorMessage.'));
  /** `errorMessage.<code>` and `errorMessage.<code>.<variant>` belong to `<code>` (codes hold no dot). */
  const codeOf = (key: string) => key.split('.')[1] as string;

  it.each(LANGUAGES)('%s has a message for every error code', (language) => {
    const without = ERROR_CODES.filter((code) => !Object.keys(MESSAGES[language]).some((key) => key.startsWith('errorMessage.') && codeOf(key) === code));
    expect(without).toEqual([]);
    expect(ERROR_CODES.length).toBeGreaterThan(40);
  });

  it('are keyed by a known code, and name the same placeholders in every language', () => {
    expect(keys.filter((key) => !(ERROR_CODES as readonly string[]).includes(codeOf(key)))).toEqual([]);
    for (const key of keys) {
      const placeholders = placeholdersOf(MESSAGES.en[key] as string);
      for (const language of LANGUAGES) expect(placeholdersOf(MESSAGES[language][key] ?? ''), `${language} ${key}`).toEqual(placeholders);
    }
  });

  it('lists every code once', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('are formatted in one pass: a value is not read as a placeholder', () => {
    expect(formatMessage('en', 'errorMessage.rest-event-not-found.slug', { slug: '{slug}' })).toBe('Event with slug "{slug}" does not exist.');
    expect(formatMessage('de', 'errorMessage.rest_slug_conflict.eventId', { slug: 'a-{id}', id: 7 })).toBe(
      'Der Slug „a-{id}“ wird bereits von der Veranstaltung 7 verwendet.',
    );
    expect(formatMessage('fr', 'errorMessage.rest_too_many_requests', { max: 3, after: (language) => formatDuration(language, 1) })).toBe(
      'Trop de requêtes : 3 au plus par minute ; réessayez dans 1 seconde.',
    );
  });
});

describe('durations', () => {
  it('read in English as @fastify/rate-limit writes them', () => {
    expect([1, 2, 59, 60].map((s) => formatDuration('en', s))).toEqual(['1 second', '2 seconds', '59 seconds', '1 minute']);
  });

  it('are translated, with the singular French gives 0 and 1', () => {
    expect([0, 1, 30, 60, 120].map((s) => formatDuration('de', s))).toEqual(['0 Sekunden', '1 Sekunde', '30 Sekunden', '1 Minute', '2 Minuten']);
    expect([0, 1, 30, 60, 120].map((s) => formatDuration('fr', s))).toEqual(['0 seconde', '1 seconde', '30 secondes', '1 minute', '2 minutes']);
  });
});

describe('languages of request URLs', () => {
  it.each([
    ['/calendar/events/v1/events/1', 'en'],
    ['/en/calendar/events/v1/events/1', 'en'],
    ['/de/calendar/events/v1/events/1', 'de'],
    ['/fr/calendar/events/v1/nowhere?x=1', 'fr'],
    ['/de', 'de'],
    ['/fr?x', 'fr'],
    ['/de/docs/', 'de'],
    ['/DE/calendar/events/v1', 'en'],
    ['/deutsch/calendar/events/v1', 'en'],
    ['/es/calendar/events/v1', 'en'],
    ['/health/live', 'en'],
    ['*', 'en'],
  ] as const)('%s is answered in %s', (url, language) => {
    expect(languageOfUrl(url)).toBe(language);
  });
});
