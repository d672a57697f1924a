/**
 * Text normalisation for the gazetteer: every name it compares (places, regions, countries) and
 * every field it reads goes through here first (rule 1 of src/lib/gazetteer.ts).
 */

/** Longest field considered; anything longer is treated as unusable. */
const MAX_FIELD = 200;

const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
};
const SPECIAL_RE = /[ßæœøłđðþıħ]/g;
const TOKEN_CANON: Record<string, string> = { saint: 'st', sainte: 'ste', sankt: 'st', mount: 'mt', fort: 'ft' };
const TOKEN_RE = /\b(saint|sainte|sankt|mount|fort)\b/g;
const TOKEN_HINT = /\b(?:saint|sankt|mount|fort)/;

/**
 * Case-, diacritic-, punctuation- and whitespace-insensitive key for a place or region name:
 * "  Saint-Étienne " → "st etienne", "MÜNCHEN" → "munchen", "St. Louis" → "st louis".
 */
export function normalizeName(value: string): string {
  let key = value.toLowerCase();
  if (hasNonAscii(key)) {
    key = key
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(SPECIAL_RE, (ch) => SPECIAL_LETTERS[ch] ?? ch)
      .replace(/[^\p{L}\p{N}]+/gu, ' ');
  } else {
    key = key.replace(/[^a-z0-9]+/g, ' ');
  }
  key = key.trim();
  return TOKEN_HINT.test(key) ? key.replace(TOKEN_RE, (word) => TOKEN_CANON[word] ?? word) : key;
}

/** "muenchen" → "munchen": German umlauts typed as ae/oe/ue (used only after an exact miss). */
export function foldUmlautDigraphs(key: string): string {
  return key.replace(/([aou])e/g, '$1');
}

/** A usable trimmed field, '' when absent/empty/not text, or null when present but unusable. */
export function field(value: unknown): string | null {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length > MAX_FIELD ? null : trimmed;
}

/** Whether `text` has a character past ASCII. */
function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}
