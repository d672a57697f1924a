import { type IndexDefinition } from '../src/storage/port.js';

export const venueIndexes: IndexDefinition[] = [
  // GET /venues/by-slug/{slug}.
  { name: 'venues_slug_unique', key: { slug: 1 }, unique: true },
  // De-duplication on create: case-insensitive name lookup.
  { name: 'venues_name_key', key: { nameKey: 1 } },
  // Venue lists ordered by name (case-insensitive) then id.
  { name: 'venues_status_name', key: { status: 1, nameKey: 1, _id: 1 } },
  // modified_after / modified_before and orderby=modified (incremental sync), ties by id.
  { name: 'venues_status_modified_id', key: { status: 1, modifiedUtc: 1, _id: 1 } },
  // Geolocation filters: $geoWithin/$centerSphere and distance ordering.
  { name: 'venues_location_2dsphere', key: { location: '2dsphere' }, '2dsphereIndexVersion': 3 },
  // search=… over the reference's venue fields.
  {
    name: 'venues_text',
    key: {
      name: 'text',
      description: 'text',
      address: 'text',
      city: 'text',
      province: 'text',
      state: 'text',
      stateprovince: 'text',
      zip: 'text',
      phone: 'text',
    },
    default_language: 'english',
  },
] satisfies IndexDefinition[];
