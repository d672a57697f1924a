/**
 * The gazetteer's postal codes: US ZIP codes and Canadian forward sortation areas from `zipcodes`,
 * each with its centroid, and the check that a ZIP agrees with the city written beside it (rule 3
 * of src/lib/gazetteer.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ALIAS_INDEX, candidatesFor, getCities } from './cities.js';
import { lazy, loadAndForget } from './load.js';
import { foldUmlautDigraphs, normalizeName } from './names.js';
import { US_STATES, US_TERRITORIES, US_ZIP_COUNTRIES } from './regions.js';

type ZipcodesModule = typeof import('zipcodes');

/** A place within this distance of a ZIP centroid counts as "the ZIP's city" (see rule 3). */
const ZIP_CITY_KM = 50;

export interface PostalIndex {
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

export const getPostal = lazy((): PostalIndex => buildPostalIndex(zipcodeRows()));

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

function approxKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dy = lat2 - lat1;
  const dx = (lng2 - lng1) * Math.cos(((lat1 + lat2) / 2) * (Math.PI / 180));
  return Math.sqrt(dx * dx + dy * dy) * 111.2;
}

/** Does the ZIP centroid agree with the city the caller wrote? (Rule 3, inferred country only.) */
export function zipMatchesCity(postal: PostalIndex, zip: number, cityKey: string, lat: number, lng: number): boolean {
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
