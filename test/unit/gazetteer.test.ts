/**
 * The offline gazetteer (src/lib/gazetteer.ts, its parts in src/lib/gazetteer/): coordinates for
 * a venue address from packaged data (US ZIPs / Canadian FSAs, GeoNames cities, country names in
 * many languages), with no network. Expected coordinates are the places' true ones (general
 * knowledge), checked within ±0.5°; they are not copied from the data.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type GazetteerHit, type GazetteerQuery, geocode, preloadGazetteer } from '../../src/lib/gazetteer.js';
import { cityAliases } from '../../src/lib/gazetteer/cities.js';
import { normalizeName } from '../../src/lib/gazetteer/names.js';
import { zipcodeRows } from '../../src/lib/gazetteer/postal.js';
import { regionTables, resolveCountry } from '../../src/lib/gazetteer/regions.js';

const TOLERANCE = 0.5;

function expectNear(hit: GazetteerHit | null, lat: number, lng: number, match: GazetteerHit['match']) {
  expect(hit, 'expected a hit').not.toBeNull();
  expect(hit!.match).toBe(match);
  expect(Math.abs(hit!.lat - lat), `lat ${hit!.lat} vs ${lat}`).toBeLessThanOrEqual(TOLERANCE);
  expect(Math.abs(hit!.lng - lng), `lng ${hit!.lng} vs ${lng}`).toBeLessThanOrEqual(TOLERANCE);
}

describe('geocode: city + country', () => {
  it.each<[string, GazetteerQuery, number, number]>([
    ['Berlin, Germany', { city: 'Berlin', country: 'Germany' }, 52.52, 13.405],
    ['Berlin, Allemagne (French country name)', { city: 'Berlin', country: 'Allemagne' }, 52.52, 13.405],
    ['Paris, France (not Paris, Texas)', { city: 'Paris', country: 'France' }, 48.857, 2.352],
    ['Paris, TX, US', { city: 'Paris', state: 'TX', country: 'US' }, 33.661, -95.556],
    ['Paris, Texas, United States of America', { city: 'Paris', state: 'Texas', country: 'United States of America' }, 33.661, -95.556],
    ['Paris, TX without a country (US inferred from the state)', { city: 'Paris', state: 'TX' }, 33.661, -95.556],
    ['Springfield, IL, US', { city: 'Springfield', state: 'IL', country: 'US' }, 39.78, -89.65],
    ['Springfield, MA, US', { city: 'Springfield', state: 'MA', country: 'US' }, 42.101, -72.59],
    ['Springfield, Massachusetts, USA', { city: 'Springfield', state: 'Massachusetts', country: 'USA' }, 42.101, -72.59],
    ['München, Deutschland', { city: 'München', country: 'Deutschland' }, 48.137, 11.575],
    ['MÜNCHEN, DE (case)', { city: 'MÜNCHEN', country: 'DE' }, 48.137, 11.575],
    ['Muenchen, DEU (umlaut transliteration, alpha-3)', { city: 'Muenchen', country: 'DEU' }, 48.137, 11.575],
    ['Munich, Germany (English name)', { city: 'Munich', country: 'Germany' }, 48.137, 11.575],
    ['Zurich, CH (no diacritics)', { city: 'Zurich', country: 'CH' }, 47.377, 8.541],
    ['  zürich  , schweiz (whitespace, German country name)', { city: '  zürich  ', country: 'schweiz' }, 47.377, 8.541],
    ['São Paulo, Brazil', { city: 'São Paulo', country: 'Brazil' }, -23.55, -46.633],
    ['Sao Paulo, Brasil', { city: 'Sao Paulo', country: 'Brasil' }, -23.55, -46.633],
    ['Tokyo, Japan', { city: 'Tokyo', country: 'Japan' }, 35.68, 139.69],
    ['Tokyo, 日本', { city: 'Tokyo', country: '日本' }, 35.68, 139.69],
    ['Nürnberg, Bavaria, Germany (English region name)', { city: 'Nürnberg', state: 'Bavaria', country: 'Germany' }, 49.452, 11.077],
    ['Nuremberg, Bayern, DE (alias, German region name)', { city: 'Nuremberg', province: 'Bayern', country: 'DE' }, 49.452, 11.077],
    ['Frankfurt, Hessen, Deutschland (alias to Frankfurt am Main)', { city: 'Frankfurt', state: 'Hessen', country: 'Deutschland' }, 50.11, 8.682],
    ['Genf, GE, Suisse (raw canton code)', { city: 'Genf', state: 'GE', country: 'Suisse' }, 46.204, 6.143],
    ['London, UK', { city: 'London', country: 'UK' }, 51.507, -0.128],
    ['London, Ontario, Canada', { city: 'London', province: 'Ontario', country: 'Canada' }, 42.984, -81.246],
    ['Perth, Australia', { city: 'Perth', country: 'Australia' }, -31.95, 115.86],
    ['Perth, Scotland, United Kingdom', { city: 'Perth', state: 'Scotland', country: 'United Kingdom' }, 56.396, -3.437],
    ['St. Louis, MO (Saint/St.)', { city: 'Saint Louis', state: 'MO', country: 'US' }, 38.627, -90.199],
    ['Washington, DC (alias for the capital)', { city: 'Washington', state: 'DC' }, 38.907, -77.037],
    ['New York, NY (alias to New York City)', { city: 'New York', state: 'NY', country: 'US' }, 40.713, -74.006],
    ['San Juan, PR (territory inferred from the state)', { city: 'San Juan', state: 'PR' }, 18.466, -66.106],
    ['San Juan, PR, US (US + territory code)', { city: 'San Juan', state: 'PR', country: 'US' }, 18.466, -66.106],
    ['Tokyo without a country (unique name worldwide)', { city: 'Tokyo' }, 35.68, 139.69],
  ])('%s', (_label, query, lat, lng) => {
    expectNear(geocode(query), lat, lng, 'city');
  });
});

describe('geocode: postal codes first', () => {
  it.each<[string, GazetteerQuery, number, number]>([
    ['US ZIP 90210 (Beverly Hills)', { zip: '90210' }, 34.09, -118.41],
    ['US ZIP 90210 with country', { zip: '90210', country: 'US' }, 34.09, -118.41],
    ['ZIP+4 90210-1234', { zip: '90210-1234', country: 'United States' }, 34.09, -118.41],
    ['ZIP+4 without hyphen', { zip: '902101234' }, 34.09, -118.41],
    ['ZIP+4 20500-0003 (White House)', { zip: '20500-0003', country: 'USA' }, 38.898, -77.037],
    ['ZIP wins over a contradicting city', { zip: '10001', city: 'Springfield', state: 'NY', country: 'US' }, 40.75, -73.997],
    ['ZIP without a country but with its own city', { zip: '90211', city: 'Beverly Hills' }, 34.065, -118.38],
    ['Puerto Rico ZIP without a country', { zip: '00901' }, 18.466, -66.106],
    ['Canadian postal code (FSA of downtown Toronto)', { zip: 'M5V 3L9', city: 'Toronto' }, 43.64, -79.39],
    ['Canadian postal code without a city (Ottawa)', { zip: 'K1A0B1', country: 'CA' }, 45.42, -75.7],
  ])('%s', (_label, query, lat, lng) => {
    expectNear(geocode(query), lat, lng, 'postal-code');
  });

  it('ignores a ZIP whose state contradicts the given state, and uses the city', () => {
    expectNear(geocode({ zip: '90210', city: 'Springfield', state: 'IL', country: 'US' }), 39.78, -89.65, 'city');
  });

  it('does not use a US ZIP for another country', () => {
    expectNear(geocode({ zip: '75001', city: 'Paris', country: 'France' }), 48.857, 2.352, 'city');
  });

  it('prefers the city over a rural Canadian FSA, and falls back to the FSA without one', () => {
    expectNear(geocode({ zip: 'T0A 1A1', city: 'Bonnyville', country: 'CA' }), 54.267, -110.737, 'city');
    // "T0A" is all of eastern Alberta: its centroid, as a last resort.
    expectNear(geocode({ zip: 'T0A 1A1', country: 'CA' }), 53.9, -111.1, 'postal-code');
  });
});

describe('geocode: tie rule and region rule', () => {
  it('picks the most populous place of that name in the country when no state is given', () => {
    // Springfield, Missouri (≈170k) outnumbers Springfield, Massachusetts and Illinois.
    expectNear(geocode({ city: 'Springfield', country: 'US' }), 37.209, -93.292, 'city');
  });

  it('ignores a state that resolves to nothing', () => {
    expectNear(geocode({ city: 'Springfield', state: 'Nowhere State', country: 'US' }), 37.209, -93.292, 'city');
  });

  it.each<[string, GazetteerQuery]>([
    ['Berlin, Bayern, DE (no Berlin in Bavaria)', { city: 'Berlin', state: 'Bayern', country: 'DE' }],
    ['Paris, Bavaria, Germany', { city: 'Paris', state: 'Bavaria', country: 'Germany' }],
  ])('a resolved state restricts strictly: %s → null', (_label, query) => {
    expect(geocode(query)).toBeNull();
  });

  /** Aliases that are also places of their own: the exact name wins unless a region excludes it. */
  const ALIAS_IN_REGION: Record<string, GazetteerQuery> = { 'US|Washington': { state: 'DC' } };

  it.each(cityAliases.map(([cc, alias, target]) => [`${alias} → ${target} (${cc})`, cc, alias, target] as const))(
    'alias %s names a place in the data',
    (_label, cc, alias, target) => {
      const region = ALIAS_IN_REGION[`${cc}|${alias}`] ?? {};
      const viaTarget = geocode({ city: target, country: cc, ...region });
      expect(viaTarget).not.toBeNull();
      expect(geocode({ city: alias, country: cc, ...region })).toEqual(viaTarget);
    },
  );

  /** A city in each region of the hand-written region tables (their GeoNames codes are numeric). */
  const REGION_CITY: Record<string, string> = {
    'CA|01': 'Edmonton',
    'CA|02': 'Vancouver',
    'CA|03': 'Winnipeg',
    'CA|04': 'Moncton',
    'CA|05': "St. John's",
    'CA|07': 'Halifax',
    'CA|08': 'Toronto',
    'CA|09': 'Charlottetown',
    'CA|10': 'Montréal',
    'CA|11': 'Regina',
    'CA|12': 'Whitehorse',
    'CA|13': 'Yellowknife',
    'CA|14': 'Iqaluit',
    'AU|01': 'Canberra',
    'AU|02': 'Sydney',
    'AU|03': 'Darwin',
    'AU|04': 'Brisbane',
    'AU|05': 'Adelaide',
    'AU|06': 'Hobart',
    'AU|07': 'Melbourne',
    'AU|08': 'Perth',
    'DE|01': 'Stuttgart',
    'DE|02': 'Munich',
    'DE|03': 'Bremen',
    'DE|04': 'Hamburg',
    'DE|05': 'Wiesbaden',
    'DE|06': 'Hannover',
    'DE|07': 'Düsseldorf',
    'DE|08': 'Mainz',
    'DE|09': 'Saarbrücken',
    'DE|10': 'Kiel',
    'DE|11': 'Potsdam',
    'DE|12': 'Schwerin',
    'DE|13': 'Dresden',
    'DE|14': 'Magdeburg',
    'DE|15': 'Erfurt',
    'DE|16': 'Berlin',
    'GB|ENG': 'London',
    'GB|SCT': 'Edinburgh',
    'GB|WLS': 'Cardiff',
    'GB|NIR': 'Belfast',
  };
  const regionCases = regionTables.filter(([cc]) => cc !== 'US').flatMap(([cc, code, names]) => names.map((name) => [cc, code, name] as const));

  it.each(regionCases)('region %s %s (%s) finds its city', (cc, code, name) => {
    const city = REGION_CITY[`${cc}|${code}`];
    expect(city, `no test city for ${cc}|${code}`).toBeDefined();
    expect(geocode({ city, state: name, country: cc })).not.toBeNull();
  });

  it('has a region entry for every test city (no stale test rows)', () => {
    const codes = new Set(regionTables.map(([cc, code]) => `${cc}|${code}`));
    for (const key of Object.keys(REGION_CITY)) expect(codes.has(key), key).toBe(true);
  });
});

describe('geocode: null when unsure or unknown', () => {
  it.each<[string, GazetteerQuery]>([
    ['unknown city', { city: 'Atlantisville', country: 'US' }],
    ['unknown city abroad', { city: 'Xyzzyburg', country: 'Germany' }],
    ['missing country, name in many countries (Springfield)', { city: 'Springfield' }],
    ['missing country, name in many countries (Paris)', { city: 'Paris' }],
    ['French postcode without a country: ZIP-inferred US rejected, Paris ambiguous', { city: 'Paris', zip: '75001' }],
    ['unresolvable country', { city: 'Paris', country: 'Atlantis' }],
    ['unknown US ZIP and no city', { zip: '00000' }],
    ['no fields', {}],
    ['empty strings', { city: '', country: '', state: '', province: '', zip: '' }],
    ['whitespace only', { city: '   ', country: '\t', zip: ' ' }],
    ['emoji', { city: '🎉🏙️', country: '🇩🇪' }],
    ['emoji city, real country', { city: '🎉', country: 'Germany' }],
    ['punctuation only', { city: '---...', country: 'US' }],
    ['very long city', { city: 'Berlin'.repeat(10_000), country: 'Germany' }],
    ['very long country', { city: 'Berlin', country: 'Germany'.repeat(10_000) }],
    ['very long ZIP', { zip: '9'.repeat(100_000) }],
    ['control characters', { city: '\u0000\u0001\u0002', country: '\u202e' }],
    ['lone surrogate', { city: '\ud800', country: 'DE' }],
  ])('%s → null', (_label, query) => {
    expect(geocode(query)).toBeNull();
  });

  it('never throws on values of the wrong type', () => {
    const odd: unknown[] = [
      null,
      undefined,
      42,
      'Berlin',
      [],
      { city: 42 },
      { city: { toString: () => 'Berlin' }, country: ['DE'] },
      { city: Symbol('x') },
      { zip: Number.NaN },
      { city: 'Berlin', country: null },
      Object.create(null),
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('boom');
          },
        },
      ),
    ];
    for (const value of odd) {
      expect(() => geocode(value as GazetteerQuery)).not.toThrow();
      expect(geocode(value as GazetteerQuery)).toBeNull();
    }
  });

  it('accepts a numeric ZIP from loosely typed callers', () => {
    expectNear(geocode({ zip: 90210 as unknown as string }), 34.09, -118.41, 'postal-code');
  });
});

describe('resolveCountry', () => {
  it.each([
    ['Germany', 'DE'],
    ['Deutschland', 'DE'],
    ['Allemagne', 'DE'],
    ['DE', 'DE'],
    ['deu', 'DE'],
    ['United States', 'US'],
    ['U.S.A.', 'US'],
    ['The Netherlands', 'NL'],
    ['Schweiz', 'CH'],
    ['Brasil', 'BR'],
    ['日本', 'JP'],
    ["Côte d'Ivoire", 'CI'],
    ['England', 'GB'],
    ['UK', 'GB'],
  ])('%s → %s', (name, code) => {
    expect(resolveCountry(name)).toBe(code);
  });

  it.each(['', 'Atlantis', 'XX', '🇩🇪'])('%j → null', (name) => {
    expect(resolveCountry(name)).toBeNull();
  });
});

describe('normalizeName', () => {
  it.each([
    ['Zürich', 'zurich'],
    ['MÜNCHEN', 'munchen'],
    ['  São   Paulo ', 'sao paulo'],
    ['Saint-Étienne', 'st etienne'],
    ['St. Louis', 'st louis'],
    ['Gießen', 'giessen'],
    ['Łódź', 'lodz'],
    ['Tromsø', 'tromso'],
    ['İstanbul', 'istanbul'],
    ['Fort Worth', 'ft worth'],
    ["'s-Gravenhage", 's gravenhage'],
    ['🎉', ''],
  ])('%j → %j', (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });
});

describe('loading and speed', () => {
  it('loads every data set and answers later lookups quickly', () => {
    expect(preloadGazetteer()).toBe(true);
    const queries: GazetteerQuery[] = [
      { city: 'Paris', country: 'France' },
      { city: 'Springfield', state: 'IL', country: 'US' },
      { zip: '10001' },
      { city: 'Muenchen', country: 'Deutschland' },
      { city: 'Nowhere', country: 'Japan' },
    ];
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) geocode(queries[i % queries.length]!);
    // ~1–5 µs a lookup when measured; the bound only catches an accidental linear scan.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('zipcodes data read as JSON', () => {
  it('holds exactly the rows, in the order, that loading the package gives', () => {
    const viaModule = (createRequire(import.meta.url)('zipcodes') as { codes: Record<string, unknown> }).codes;
    const viaJson = zipcodeRows().codes;
    expect(Object.keys(viaJson)).toEqual(Object.keys(viaModule));
    expect(viaJson).toEqual(viaModule);
  });
});
