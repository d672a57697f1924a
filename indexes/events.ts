import { type IndexDefinition } from '../src/storage/port.js';

export const eventIndexes: IndexDefinition[] = [
  // GET /events/by-slug/{slug}; slugs are unique per resource type.
  { name: 'events_slug_unique', key: { slug: 1 }, unique: true },
  // The default event list: status filter, ordered by start then id. The list indexes led by a
  // filter field (venue, organizer, category, tag, series) end in startUtc, _id like this one: the
  // list sorts by [startUtc, _id], and an index yields that order only when both fields follow the
  // fields the filter pins to values (without _id, MongoDB adds a blocking sort for start-time ties).
  // An index is renamed when its key changes: MongoDB cannot change an index in place, and a new
  // name lets a running database build the new index beside the old one instead of refusing to start.
  { name: 'events_status_start', key: { status: 1, startUtc: 1, _id: 1 } },
  // modified_after / modified_before and orderby=modified (incremental sync): status, then the
  // modification time in order; _id ends it for the same reason as above.
  { name: 'events_status_modified_id', key: { status: 1, modifiedUtc: 1, _id: 1 } },
  // end_date / ends_* bounds combined with status.
  { name: 'events_status_end', key: { status: 1, endUtc: 1 } },
  // venue=…, and unlinking a trashed venue from its events.
  { name: 'events_venue_start_id', key: { venueId: 1, startUtc: 1, _id: 1 } },
  // organizer=… (multikey), and unlinking a trashed organizer.
  { name: 'events_organizers_start_id', key: { organizerIds: 1, startUtc: 1, _id: 1 } },
  // categories=… (multikey; descendants expanded by the compiler).
  { name: 'events_categories_start_id', key: { categoryIds: 1, startUtc: 1, _id: 1 } },
  // tags=… (multikey).
  { name: 'events_tags_start_id', key: { tagIds: 1, startUtc: 1, _id: 1 } },
  // post_parent=… (series of occurrences).
  { name: 'events_post_parent_start_id', key: { postParent: 1, startUtc: 1, _id: 1 } },
  // search=…: candidates by any word; searchTerms $all then requires every word.
  {
    name: 'events_text',
    key: { title: 'text', description: 'text', excerpt: 'text' },
    weights: { title: 10, excerpt: 3, description: 1 },
    default_language: 'english',
  },
] satisfies IndexDefinition[];
