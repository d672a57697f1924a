/**
 * Normalisation of validated request values into domain values. The schemas have already checked
 * shapes; these functions apply the reference's coercions.
 */
import { listItems } from '../query/list-input.js';
import { type ListInputValue, type WpBooleanValue } from '../schemas/common.js';
import { type StoredImage } from '../storage/port.js';

/** WordPress boolean coercion: "false", "0", 0, false → false; "true", "1", 1, true → true. */
export function toBool(value: WpBooleanValue): boolean {
  if (typeof value === 'string') return value.toLowerCase() === 'true' || value === '1';
  return value === true || value === 1;
}

/** The items of list parameter `param` (src/query/list-input.ts: both forms, one cap). */
export function toList(value: ListInputValue | string[] | undefined, param: string): ReadonlyArray<string | number> {
  return listItems<string | number>(value, param);
}

/**
 * The terms an event write names (ids, slugs or names), blank items left out: a blank names nothing
 * (it would otherwise create a term without a name).
 */
export function termItems(value: ListInputValue, param: string): ReadonlyArray<string | number> {
  return without(toList(value, param), (item) => typeof item === 'string' && item.trim() === '');
}

/**
 * `items` less those `drop` picks; `items` itself when it picks none (nearly always), so a bulk load
 * does not copy every list of every record twice. Callers only read the result.
 */
function without<T>(items: readonly T[], drop: (item: T) => boolean): readonly T[] {
  for (let i = 0; i < items.length; i++) if (drop(items[i]!)) return items.filter((item) => !drop(item));
  return items;
}

/** A numeric id from an integer or a string of digits; null for anything else. */
export function toId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  }
  return null;
}

/** An http(s) URL, or null when the value is not one. */
export function toHttpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** Collects parameter errors so one 400 names every bad parameter. */
export class ParamErrors {
  readonly params: Record<string, string> = {};
  add(name: string, message: string): void {
    if (!(name in this.params)) this.params[name] = message;
  }
  /** Without Object.keys' array: every write of a bulk load asks once. */
  get empty(): boolean {
    for (const _ in this.params) return false;
    return true;
  }
}

/** The reference's loose truthiness for `show_map`, `has_events`, …: also JSON booleans. */
export function isTruthy(value: boolean | number | string | unknown[]): boolean {
  // A repeated query key (`has_events[]=…`) arrives as a list: the last value counts, as in PHP.
  const last: unknown = Array.isArray(value) ? value[value.length - 1] : value;
  if (typeof last === 'boolean') return last;
  if (typeof last === 'number') return last !== 0;
  if (typeof last !== 'string') return false;
  return ['1', 'enable', 'enabled', 'on', 'y', 'yes', 'true'].includes(last.trim().toLowerCase());
}

/**
 * `image`: an http(s) URL is stored with its extension; `""` removes the image (null);
 * anything else — numeric attachment ids included — is invalid (undefined), with a message.
 */
export function resolveImage(value: string | number, errors: ParamErrors, param = 'image'): StoredImage | null | undefined {
  const numeric = typeof value === 'number' || /^\d+$/.test(value.trim());
  const trimmed = typeof value === 'number' ? '' : value.trim();
  if (!numeric && trimmed === '') return null;
  const url = numeric ? null : toHttpUrl(trimmed);
  if (!url) {
    errors.add(
      param,
      numeric
        ? `${param} must be an http(s) URL: this service has no media library, so attachment ids are not accepted.`
        : `${param} must be an http(s) URL of an image.`,
    );
    return undefined;
  }
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(url.pathname)?.[1]?.toLowerCase() ?? '';
  return { url: url.toString(), extension };
}

/** `website`: an http(s) URL, or `""` to clear it. */
export function resolveWebsite(value: string, errors: ParamErrors, param = 'website'): string | undefined {
  const website = value.trim();
  if (website !== '' && toHttpUrl(website) === null) {
    errors.add(param, `${param} must be an http(s) URL.`);
    return undefined;
  }
  return website;
}
