/**
 * Human-readable texts in every language of the service: descriptions for the documentation and
 * error messages. Each language is one flat JSON file keyed by a stable id (`<schema or
 * route>.<param>`, `errorMessage.<code>[.<variant>]`); `en.json` is the only source of the English
 * texts: schemas carry the key next to the English description through `i18n(key)`, the index route
 * and `/doc` swap in the root's language by that key, and errors carry their message's key and
 * placeholder values, which the error handler formats in the language of the request's root.
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

/** `''` and `/en` are English, `/de` German, `/fr` French. */
export function languageOfRoot(root: string): Language {
  const candidate = root.replace(/^\//, '');
  return (LANGUAGES as readonly string[]).includes(candidate) ? (candidate as Language) : 'en';
}

/**
 * The language of a request from its URL: the root is the URL's first path segment when that is a
 * language (`/de/…` German, `/fr/…` French), else English (`''`, `/en`, and paths under no root).
 * It is known before routing, so requests refused before a route is found are answered in it too.
 */
export function languageOfUrl(url: string): Language {
  if (url[0] !== '/') return 'en';
  const end = url.slice(1).search(/[/?#]/);
  const first = end < 0 ? url.slice(1) : url.slice(1, end + 1);
  return (LANGUAGES as readonly string[]).includes(first) ? (first as Language) : 'en';
}

/** A placeholder value that reads differently in each language (e.g. a duration). */
export type LocalizedValue = (language: Language) => string;
export type MessageValue = string | number | LocalizedValue;
export type MessageValues = Readonly<Record<string, MessageValue>>;

const PLACEHOLDER = /\{(\w+)\}/g;

/** The names of a text's `{placeholders}`, sorted, each once. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string))].sort();
}

/**
 * The text of `key` in `language` with each `{name}` replaced by its value. One pass: braces inside
 * a value (a slug such as `{x}`) are not read as placeholders. A placeholder without a value stays
 * as written.
 */
export function formatMessage(language: Language, key: MessageKey, values: MessageValues = {}): string {
  return (translate(language, key) ?? key).replace(PLACEHOLDER, (whole, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) return whole;
    return typeof value === 'function' ? value(language) : String(value);
  });
}

/**
 * A number of seconds as words: seconds below a minute, else whole minutes (rounded half up), the
 * way @fastify/rate-limit writes its `after` in English ("1 second", "30 seconds", "1 minute").
 * French puts 0 and 1 in the singular, English and German only 1.
 */
export function formatDuration(language: Language, seconds: number): string {
  const [unit, count] = seconds < 60 ? (['seconds', Math.round(seconds)] as const) : (['minutes', Math.floor(seconds / 60 + 0.5)] as const);
  const one = count === 1 || (language === 'fr' && count === 0);
  return formatMessage(language, `duration.${unit}.${one ? 'one' : 'other'}`, { count });
}
