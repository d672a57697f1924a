import { describe, expect, it } from 'vitest';
import { costDetails, costValues, formatCost, parseCost, type CurrencyPosition } from '../../src/lib/cost.js';

/** What the event serializer shows for a cost sent on write. */
function rendered(input: unknown): { cost: string; cost_details: ReturnType<typeof costDetails> } | null {
  const parsed = parseCost(input);
  if (parsed === null) return null;
  return {
    cost: formatCost(parsed.cost, parsed.currencySymbol, parsed.currencyPosition),
    cost_details: costDetails(parsed.cost, parsed.currencySymbol, parsed.currencyPosition),
  };
}

const details = (currency_symbol: string, currency_position: CurrencyPosition, values: string[]) => ({
  currency_symbol,
  currency_code: '',
  currency_position,
  values,
});

describe('cost as the reference renders it', () => {
  it.each([
    // Samples 10 / 13 (cost "10") and 39 (cost "15"): no symbol stored, the site default `$` prefix shown.
    ['10', '$10', details('', '', ['10'])],
    ['15', '$15', details('', '', ['15'])],
    [10, '$10', details('', '', ['10'])],
    // Samples 11 / 12 / 40: no cost.
    ['', '', details('', '', [])],
    [[], '', details('', '', [])],
    // EventInsertionCest L555 / EventUpdateCest L654.
    ['20$', '20$', details('$', 'postfix', ['20'])],
    // EventInsertionCest L584 / EventUpdateCest L685.
    [['0$', '20$', '30$'], 'Free – 30$', details('$', 'postfix', ['0', '20', '30'])],
    // SingleEventCest:214.
    ['$23', '$23', details('$', 'prefix', ['23'])],
    ['€ 15', '€15', details('€', 'prefix', ['15'])],
    ['15 €', '15€', details('€', 'postfix', ['15'])],
    ['£7.50', '£7.50', details('£', 'prefix', ['7.50'])],
    ['0', 'Free', details('', '', ['0'])],
    ['0.00', 'Free', details('', '', ['0.00'])],
    ['Free', 'Free', details('', '', ['0'])],
    ['Donation', 'Donation', details('', '', [])],
    [['Donation', 'Pay what you want'], 'Donation, Pay what you want', details('', '', [])],
    [['Donation', '10'], '$10', details('', '', ['10'])],
    [['free', '20$', '30$'], 'Free – 30$', details('$', 'postfix', ['0', '20', '30'])],
    ['free, 20$, 30$', '20$ – 30$', details('$', 'postfix', ['20', '30'])],
    ['10 - 20$', '10$ – 20$', details('$', 'postfix', ['10', '20'])],
    ['$10 - $20', '$10 – $20', details('$', 'prefix', ['10', '20'])],
    [['30$', '20$', '30$'], '20$ – 30$', details('$', 'postfix', ['20', '30'])],
    [['10', '10.00'], '$10', details('', '', ['10'])],
    ['CHF 20', 'CHF20', details('CHF', 'prefix', ['20'])],
    ['20 kr', '20kr', details('kr', 'postfix', ['20'])],
    ['US$ 20', 'US$20', details('US$', 'prefix', ['20'])],
    ['$20 USD', '$20', details('$', 'prefix', ['20'])],
    // Mixed symbols or positions: that part is left empty, as the reference's parse_currency_* do.
    [['free', '20¥', '30$'], 'Free – $30', details('', '', ['0', '20', '30'])],
    [['$20', '30$'], '$20 – $30', details('$', '', ['20', '30'])],
    [['20', '30$'], '$20 – $30', details('', '', ['20', '30'])],
  ])('%j → %j', (input, cost, costDetailsExpected) => {
    expect(rendered(input)).toStrictEqual({ cost, cost_details: costDetailsExpected });
  });
});

describe('parseCost', () => {
  it.each([
    // Tribe__Cost_Utils tests (tribe-common Cost_UtilsTest): inferred symbol and position.
    ['foo', '', ''],
    ['foo bar', '', ''],
    ['2$', '$', 'postfix'],
    ['$2', '$', 'prefix'],
    ['$ 2', '$', 'prefix'],
    ['2 $', '$', 'postfix'],
    ['free, 20$, 30$', '$', 'postfix'],
    [['free', '20$', '30$'], '$', 'postfix'],
    [['free', '20¥', '30$'], '', ''],
    [['20¥', '30$'], '', ''],
    [['free', '20¥'], '¥', 'postfix'],
    [['$20', '30$'], '$', ''],
    [['$ 20', '$30'], '$', 'prefix'],
    [['20$', '30 $'], '$', 'postfix'],
    ['Adults 20$, kids 10$', '$', 'postfix'],
    ['ab 10', '', ''],
  ])('%j → symbol %j, position %j', (input, currencySymbol, currencyPosition) => {
    const parsed = parseCost(input);
    expect(parsed?.currencySymbol).toBe(currencySymbol);
    expect(parsed?.currencyPosition).toBe(currencyPosition);
  });

  it.each([
    ['  20$  ', ['20$']],
    [
      ['', ' 10 ', '20'],
      ['10', '20'],
    ],
    [12.5, ['12.5']],
    [
      [0, '20$'],
      ['0', '20$'],
    ],
  ])('stores %j as %j', (input, cost) => {
    expect(parseCost(input)?.cost).toStrictEqual(cost);
  });

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY], [1e21], [true], [null], [{ amount: 10 }], [[['10']]], [[10, null]], [Array(101).fill('1')]])(
    'rejects %j',
    (input) => {
      expect(parseCost(input)).toBeNull();
    },
  );
});

describe('costValues: separators', () => {
  it.each([
    [['1,000'], ['1000']],
    [['1,000,000'], ['1000000']],
    [['1,000.50'], ['1000.50']],
    [['1.000,50 €'], ['1000.50']],
    [['1.000.000'], ['1000000']],
    [['12,5€'], ['12.5']],
    [['10.50'], ['10.50']],
    [['1.500'], ['1.500']],
    [['10,20,30'], ['10', '20', '30']],
    [['007'], ['7']],
    [
      ['20$', '5$', '20$'],
      ['5', '20'],
    ],
  ])('%j → %j', (cost, values) => {
    expect(costValues(cost)).toStrictEqual(values);
  });

  it('keeps the separators as written in the human string', () => {
    expect(formatCost(['1,000'], '', '')).toBe('$1,000');
    expect(formatCost(['12,50 €', '1.000,00 €'], '€', 'postfix')).toBe('12,50€ – 1.000,00€');
  });
});

describe('formatCost / costDetails with stored values', () => {
  it.each([
    [[], '', '', ''],
    [['10'], '', '', '$10'],
    [['10'], '€', '', '€10'],
    [['10'], '', 'postfix', '10$'],
    [['20$'], '$', 'postfix', '20$'],
    [['0$', '30$'], '$', 'postfix', 'Free – 30$'],
    [['5', '50'], '€', 'prefix', '€5 – €50'],
  ] as Array<[string[], string, CurrencyPosition, string]>)('formatCost(%j, %j, %j) = %j', (cost, symbol, position, expected) => {
    expect(formatCost(cost, symbol, position)).toBe(expected);
  });

  it('costDetails keeps the reference key order and an empty currency code', () => {
    expect(Object.keys(costDetails(['10'], '', ''))).toStrictEqual(['currency_symbol', 'currency_code', 'currency_position', 'values']);
  });
});
