/**
 * Human-readable descriptions in every language of the service (design §4: only descriptions
 * differ between the language roots). Each language is one flat JSON file keyed by a stable id
 * (`<schema or route>.<param>`); `en.json` is the only source of the English texts: schemas carry
 * the key next to the English description through `i18n(key)`, and the index route and `/doc`
 * swap in the root's language by that key.
 */
import de from './de.json' with { type: 'json' };
import en from './en.json' with { type: 'json' };
import fr from './fr.json' with { type: 'json' };

export const LANGUAGES = ['en', 'de', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

export type MessageKey = keyof typeof en;
export type Messages = Record<string, string>;

/** The JSON-schema keyword naming a description's message key (an `x-` keyword: validators ignore it). */
export const I18N_KEYWORD = 'x-i18n';

export const MESSAGES: Readonly<Record<Language, Messages>> = { en, de, fr };

export interface Described {
  description: string;
  [I18N_KEYWORD]: MessageKey;
}

/** Schema options for a translated description: the English text plus its key. */
export function i18n(key: MessageKey): Described {
  return { description: en[key], [I18N_KEYWORD]: key };
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** The text of a key in a language; English when the language lacks it (the i18n test forbids that). */
export function translate(language: Language, key: string): string | undefined {
  return MESSAGES[language][key] ?? (en as Messages)[key];
}

/** `''` and `/en` are English, `/de` German, `/fr` French (design §4). */
export function languageOfRoot(root: string): Language {
  const candidate = root.replace(/^\//, '');
  return (LANGUAGES as readonly string[]).includes(candidate) ? (candidate as Language) : 'en';
}
