/**
 * Event cost handling of the reference (`Tribe__Cost_Utils`), as pure
 * functions.
 *
 * A cost is stored as the list of strings the client sent (`"20$"`, `["0$", "20$", "30$"]`, `"Donation"`)
 * plus the currency symbol and position inferred from them. Everything shown to clients is derived:
 * the numeric components (`cost_details.values`) and the human string (`cost`).
 *
 * Rules where the reference is vague or inconsistent (it mixes locale and ad-hoc separators):
 * - Numbers: runs of digits joined by `.` or `,`. `1,000` / `1,000,000` / `1,000.50` use commas as thousands
 *   separators; `1.000,50` / `1.000.000` use dots as thousands separators; a single separator otherwise
 *   is the decimal point (`12,5` → 12.5, `10.50` → 10.50, `1.500` → 1.5); anything else (`10,20,30`) is a
 *   list of separate integers. Values keep the digits as written, with `.` as decimal point and no
 *   leading zeros (`"10.50"`, `"1000"`).
 * - A cost string that is just the word `Free` (any case) counts as 0; other text without digits
 *   (`Donation`) has no value and is shown as written when the cost has no numbers at all.
 * - The currency symbol is what surrounds the numbers of a string: the text before its first number or
 *   after its last one, when it looks like a currency (contains a currency sign such as `$ € £ ¥ ₹`, is a
 *   3-letter code like `EUR`, or is one of a few letter symbols like `kr`, `zł`). Before = `prefix`,
 *   after = `postfix`. Strings with numbers must agree on the symbol, and those carrying it on the
 *   position; a disagreement leaves that part empty (as the reference's parse_currency_* do).
 * - Zero renders as `Free`, whatever its spelling (`0`, `0.00`, `0$`).
 */

export type CurrencyPosition = '' | 'prefix' | 'postfix';

export interface ParsedCost {
  /** The cost strings as sent (trimmed, empties dropped); `[]` = no cost. */
  cost: string[];
  currencySymbol: string;
  currencyPosition: CurrencyPosition;
}

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: CurrencyPosition;
  values: string[];
}

/** The reference site's defaults, used to render a number when the cost carries no symbol (`"10"` → `"$10"`). */
export const DEFAULT_CURRENCY_SYMBOL = '$';
export const DEFAULT_CURRENCY_POSITION: Exclude<CurrencyPosition, ''> = 'prefix';
/** The reference's cost range separator (an en dash with spaces). */
export const COST_RANGE_SEPARATOR = ' – ';
const FREE_LABEL = 'Free';

// Bounds that keep a single request from making the cost parser do unbounded work.
const MAX_COST_ITEMS = 100;
const MAX_COST_LENGTH = 1000;

interface CostNumber {
  /** As written in the cost string, for display (`"1,000"`). */
  text: string;
  /** Normalised numeric string (`"1000"`). */
  value: string;
  amount: number;
  /** Position in the cost string, for symbol inference. */
  start: number;
  end: number;
}

const NUMBER_TOKEN = /\d+(?:[.,]\d+)*/g;
const COMMA_THOUSANDS = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const DOT_THOUSANDS_COMMA_DECIMAL = /^\d{1,3}(?:\.\d{3})+,\d+$/;
const DOT_THOUSANDS = /^\d{1,3}(?:\.\d{3}){2,}$/;
const SINGLE_DECIMAL = /^\d+[.,]\d+$/;
const FREE_WORD = /^free$/i;
const CURRENCY_SIGN = /\p{Sc}/u;
const ISO_CODE = /^[A-Z]{3}$/;
const LETTER_SYMBOLS: ReadonlySet<string> = new Set([
  'kr',
  'kr.',
  'Kr',
  'Kč',
  'zł',
  'Fr',
  'Fr.',
  'Ft',
  'lei',
  'Rs',
  'Rs.',
  'RM',
  'Rp',
  'R',
  'Br',
  'Bs',
  'Ks',
  'Q',
  'L',
]);

function canonicalNumber(digits: string): string {
  const [whole = '0', fraction] = digits.split('.');
  const trimmed = whole.replace(/^0+(?=\d)/, '');
  return fraction === undefined ? trimmed : `${trimmed}.${fraction}`;
}

function costNumber(text: string, start: number, digits: string): CostNumber {
  const value = canonicalNumber(digits);
  return { text, value, amount: Number(value), start, end: start + text.length };
}

function numbersIn(text: string): CostNumber[] {
  const numbers: CostNumber[] = [];
  for (const match of text.matchAll(NUMBER_TOKEN)) {
    const token = match[0];
    const start = match.index;
    if (COMMA_THOUSANDS.test(token)) numbers.push(costNumber(token, start, token.replace(/,/g, '')));
    else if (DOT_THOUSANDS_COMMA_DECIMAL.test(token)) numbers.push(costNumber(token, start, token.replace(/\./g, '').replace(',', '.')));
    else if (DOT_THOUSANDS.test(token)) numbers.push(costNumber(token, start, token.replace(/\./g, '')));
    else if (SINGLE_DECIMAL.test(token)) numbers.push(costNumber(token, start, token.replace(',', '.')));
    else {
      let offset = start;
      for (const part of token.split(/[.,]/)) {
        numbers.push(costNumber(part, offset, part));
        offset += part.length + 1;
      }
    }
  }
  return numbers;
}

/** The numbers of one cost string; the bare word "Free" is 0. */
function valuesOf(text: string): CostNumber[] {
  if (FREE_WORD.test(text.trim())) return [{ text: FREE_LABEL, value: '0', amount: 0, start: 0, end: 0 }];
  return numbersIn(text);
}

function looksLikeSymbol(text: string): boolean {
  if (text === '' || text.length > 5 || /[\s\d]/.test(text)) return false;
  return CURRENCY_SIGN.test(text) || ISO_CODE.test(text) || LETTER_SYMBOLS.has(text);
}

interface SymbolUse {
  symbol: string;
  position: CurrencyPosition;
}

function symbolOf(text: string, numbers: readonly CostNumber[]): SymbolUse {
  const first = numbers[0];
  const last = numbers[numbers.length - 1];
  if (first === undefined || last === undefined) return { symbol: '', position: '' };
  const before = text.slice(0, first.start).trim();
  const after = text.slice(last.end).trim();
  const prefix = looksLikeSymbol(before);
  const postfix = looksLikeSymbol(after);
  // "$20 USD": the sign beats the code; otherwise the leading one wins, as in the reference.
  if (prefix && (!postfix || CURRENCY_SIGN.test(before) || !CURRENCY_SIGN.test(after))) return { symbol: before, position: 'prefix' };
  if (postfix) return { symbol: after, position: 'postfix' };
  return { symbol: '', position: '' };
}

/** Inferred currencies of single cost strings: bulk loads and busy sites repeat a handful of prices. */
const currencyOfOne = new Map<string, Pick<ParsedCost, 'currencySymbol' | 'currencyPosition'>>();

function inferCurrency(cost: readonly string[]): Pick<ParsedCost, 'currencySymbol' | 'currencyPosition'> {
  if (cost.length !== 1) return inferCurrencyOf(cost);
  const text = cost[0]!;
  let known = currencyOfOne.get(text);
  if (known === undefined) {
    known = inferCurrencyOf(cost);
    if (currencyOfOne.size >= 10_000) currencyOfOne.clear();
    currencyOfOne.set(text, known);
  }
  return { ...known };
}

function inferCurrencyOf(cost: readonly string[]): Pick<ParsedCost, 'currencySymbol' | 'currencyPosition'> {
  // Only strings with digits say anything about the currency ("Free" and "Donation" do not).
  const numeric = cost
    .map((text) => ({ text, numbers: numbersIn(text) }))
    .filter(({ numbers }) => numbers.length > 0)
    .map(({ text, numbers }) => symbolOf(text, numbers));
  const symbols = new Set(numeric.map((use) => use.symbol));
  const [symbol] = symbols;
  if (symbols.size !== 1 || symbol === undefined || symbol === '') return { currencySymbol: '', currencyPosition: '' };
  const positions = new Set(numeric.map((use) => use.position));
  const [position] = positions;
  return { currencySymbol: symbol, currencyPosition: positions.size === 1 && position !== undefined ? position : '' };
}

function costItem(item: unknown): string | null {
  if (typeof item === 'string') return item.length > MAX_COST_LENGTH ? null : item.trim();
  if (typeof item === 'number') {
    const text = String(item);
    return Number.isFinite(item) && item >= 0 && !/e/i.test(text) ? text : null;
  }
  return null;
}

/**
 * Validates and normalises a `cost` write value: a string, a number, or an array of those (an array is
 * a range, e.g. `["0$", "20$", "30$"]`). Returns the stored strings with the inferred currency symbol
 * and position (`"20$"` → `$`/`postfix`, `"€ 15"` → `€`/`prefix`, `"10"` → `''`/`''`); `""`/`[]` → no cost.
 * Returns null for anything else (objects, booleans, nested arrays, negative or non-finite numbers).
 */
export function parseCost(input: unknown): ParsedCost | null {
  const items = Array.isArray(input) ? input : [input];
  if (items.length > MAX_COST_ITEMS) return null;
  const cost: string[] = [];
  for (const item of items) {
    const text = costItem(item);
    if (text === null) return null;
    if (text !== '') cost.push(text);
  }
  return { cost, ...inferCurrency(cost) };
}

function sortedNumbers(cost: readonly string[]): CostNumber[] {
  const unique = new Map<number, CostNumber>();
  for (const text of cost) {
    for (const number of valuesOf(text)) {
      if (!unique.has(number.amount)) unique.set(number.amount, number);
    }
  }
  return [...unique.values()].sort((a, b) => a.amount - b.amount);
}

/** `cost_details.values`: the distinct numeric components, ascending, as numeric strings (`["0","20","30"]`). */
export function costValues(cost: readonly string[]): string[] {
  return sortedNumbers(cost).map((number) => number.value);
}

/**
 * The `cost` field: one value → `"$10"` (no symbol stored → the site default `$` prefix) or `"20$"`;
 * several → lowest and highest joined by an en dash (`"Free – 30$"`); 0 → `"Free"`; text without
 * numbers → the text as given (several texts joined by `", "`); no cost → `""`.
 */
export function formatCost(cost: readonly string[], currencySymbol: string, currencyPosition: CurrencyPosition): string {
  const numbers = sortedNumbers(cost);
  const lowest = numbers[0];
  const highest = numbers[numbers.length - 1];
  if (lowest === undefined || highest === undefined) return cost.join(', ');
  const symbol = currencySymbol === '' ? DEFAULT_CURRENCY_SYMBOL : currencySymbol;
  const position = currencyPosition === '' ? DEFAULT_CURRENCY_POSITION : currencyPosition;
  const render = (number: CostNumber): string => {
    if (number.amount === 0) return FREE_LABEL;
    return position === 'prefix' ? `${symbol}${number.text}` : `${number.text}${symbol}`;
  };
  return lowest === highest ? render(lowest) : `${render(lowest)}${COST_RANGE_SEPARATOR}${render(highest)}`;
}

/** The `cost_details` object in the reference's key order; the stored symbol/position, no currency code. */
export function costDetails(cost: readonly string[], currencySymbol: string, currencyPosition: CurrencyPosition): CostDetails {
  return {
    currency_symbol: currencySymbol,
    currency_code: '',
    currency_position: currencyPosition,
    values: costValues(cost),
  };
}
