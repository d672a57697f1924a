/**
 * Translations (issue 8 item 4): one flat JSON file per language in src/i18n/; every key present and
 * non-empty in every language, no language with keys the others lack, and every description of
 * every schema module keyed (so nothing stays English under /de or /fr).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { messageKeysOf, untranslatedDescriptions } from '../../src/docs/schema-text.js';
import { I18N_KEYWORD, LANGUAGES, MESSAGES, i18n, languageOfRoot, translate } from '../../src/i18n/index.js';
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

  /** Texts that are the same words in that language ("Slug"; French "Description (HTML)", "Province"). */
  const SAME_AS_ENGLISH: Record<string, string[]> = {
    de: ['common.slug'],
    fr: ['common.slug', 'field.description', 'field.province'],
  };

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
