/**
 * The organizer object's keys, in the reference's order (its organizer samples), as the organizer
 * routes and the organizers embedded in events both write them.
 */
export const ORGANIZER_KEYS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'organizer',
  'description',
  'slug',
  'phone',
  'website',
  'email',
  'global_id',
  'global_id_lineage',
];
