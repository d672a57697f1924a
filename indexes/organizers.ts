import { type IndexDefinition } from '../src/storage/port.js';

export const organizerIndexes: IndexDefinition[] = [
  // GET /organizers/by-slug/{slug}.
  { name: 'organizers_slug_unique', key: { slug: 1 }, unique: true },
  // De-duplication on create: case-insensitive name lookup.
  { name: 'organizers_name_key', key: { nameKey: 1 } },
  // Organizer lists ordered by name (case-insensitive) then id.
  { name: 'organizers_status_name', key: { status: 1, nameKey: 1, _id: 1 } },
  // modified_after / modified_before and orderby=modified (incremental sync), ties by id.
  { name: 'organizers_status_modified_id', key: { status: 1, modifiedUtc: 1, _id: 1 } },
  // search=… over the reference's organizer fields.
  {
    name: 'organizers_text',
    key: { name: 'text', description: 'text', phone: 'text', email: 'text', website: 'text' },
    default_language: 'english',
  },
] satisfies IndexDefinition[];
