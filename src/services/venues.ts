import { geocode } from '../lib/gazetteer.js';
import { type VenueCreate } from '../schemas/venues.js';
import { type VenueDoc } from '../storage/port.js';
import { isTruthy, type ParamErrors } from './input.js';
import { createLinkedPostService, type LinkedPostServiceDeps } from './linked-posts.js';

const TEXT_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'] as const;
const US = new Set(['', 'us', 'usa', 'united states', 'united states of america']);

/** The reference derives `stateprovince` when it is not sent (TEC Venue.php:456-471). */
function deriveStateProvince(v: Pick<VenueDoc, 'state' | 'province' | 'country'>): string {
  return US.has(v.country.trim().toLowerCase()) ? v.state : v.province;
}

const COORDINATE = /^-?\d{1,3}(?:\.\d+)?$/;

function coordinate(value: number | string, limit: number): number | null {
  const n = typeof value === 'number' ? value : COORDINATE.test(value.trim()) ? Number(value) : NaN;
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : null;
}

/** `geo_lat`/`geo_lng`: both or neither, range-checked; both `""` clear the coordinates. */
function resolveCoordinates(input: VenueCreate, set: Partial<VenueDoc>, errors: ParamErrors): void {
  const { geo_lat: lat, geo_lng: lng } = input;
  if (lat === undefined && lng === undefined) return;
  if (lat === undefined) return errors.add('geo_lat', 'geo_lat is required with geo_lng.');
  if (lng === undefined) return errors.add('geo_lng', 'geo_lng is required with geo_lat.');
  if (lat === '' && lng === '') {
    set.location = null;
    set.geoSource = null;
    return;
  }
  const latitude = coordinate(lat, 90);
  const longitude = coordinate(lng, 180);
  if (latitude === null) errors.add('geo_lat', 'geo_lat must be a number from -90 to 90.');
  if (longitude === null) errors.add('geo_lng', 'geo_lng must be a number from -180 to 180.');
  if (latitude !== null && longitude !== null) {
    set.location = { type: 'Point', coordinates: [longitude, latitude] };
    set.geoSource = 'provided';
  }
}

const PLACE_FIELDS = ['city', 'country', 'state', 'province', 'stateprovince', 'zip'] as const;

/**
 * Offline geocoding: when the place of a venue is written without coordinates, the
 * gazetteer's coordinates are stored with `geo_source: "gazetteer"`. Coordinates a caller provided
 * are never replaced; a gazetteer guess follows later address changes.
 */
function geocodeAddress(input: VenueCreate, current: VenueDoc | null, set: Partial<VenueDoc>): void {
  if (input.geo_lat !== undefined || input.geo_lng !== undefined) return;
  if (!PLACE_FIELDS.some((field) => input[field] !== undefined)) return;
  locate(current, set);
}

/** The gazetteer's guess for the address that `set` gives `current`; provided coordinates stay. */
function locate(current: VenueDoc | null, set: Partial<VenueDoc>): void {
  if (current?.geoSource === 'provided') return;
  const value = (field: (typeof PLACE_FIELDS)[number]) => set[field] ?? current?.[field] ?? '';
  const hit = geocode({
    city: value('city'),
    country: value('country'),
    state: value('state') || value('stateprovince'),
    province: value('province'),
    zip: value('zip'),
  });
  if (hit) {
    set.location = { type: 'Point', coordinates: [hit.lng, hit.lat] };
    set.geoSource = 'gazetteer';
  } else if (current?.geoSource === 'gazetteer') {
    set.location = null;
    set.geoSource = null;
  }
}

export const venueDefinition = {
  kind: 'venue',
  collection: 'venues',
  nameField: 'venue',
  slugIndex: 'venues_slug_unique',
  eventField: 'venueId',
  blank: () => ({
    address: '',
    city: '',
    country: '',
    province: '',
    state: '',
    zip: '',
    phone: '',
    stateprovince: '',
    showMap: true,
    showMapLink: true,
    location: null,
    geoSource: null,
  }),
  resolveOwn(input: VenueCreate, current: VenueDoc | null, set: Partial<VenueDoc>, errors: ParamErrors) {
    for (const field of TEXT_FIELDS) {
      const value = input[field];
      if (value !== undefined) set[field] = value.trim();
    }
    if (input.show_map !== undefined) set.showMap = isTruthy(input.show_map);
    if (input.show_map_link !== undefined) set.showMapLink = isTruthy(input.show_map_link);
    // Only derived when the address parts are sent: an update that leaves them alone keeps the
    // stored value, and on a plain create the default is "".
    const addressChanged = input.state !== undefined || input.province !== undefined || input.country !== undefined;
    if (input.stateprovince === undefined && addressChanged) {
      set.stateprovince = deriveStateProvince({
        state: set.state ?? current?.state ?? '',
        province: set.province ?? current?.province ?? '',
        country: set.country ?? current?.country ?? '',
      });
    }
    resolveCoordinates(input, set, errors);
    geocodeAddress(input, current, set);
  },
  searchTexts: (d: VenueDoc) => [d.name, d.description, d.address, d.city, d.province, d.state, d.stateprovince, d.zip, d.phone],
} as const;

export function createVenuesService(deps: LinkedPostServiceDeps) {
  return createLinkedPostService<VenueDoc, VenueCreate>(venueDefinition, deps);
}
export type VenuesService = ReturnType<typeof createVenuesService>;
