import { type IndexSet } from '../src/storage/port.js';
import { categoryIndexes } from './categories.js';
import { eventIndexes } from './events.js';
import { idempotencyIndexes } from './idempotency.js';
import { organizerIndexes } from './organizers.js';
import { seriesIndexes } from './series.js';
import { tagIndexes } from './tags.js';
import { tombstoneIndexes } from './tombstones.js';
import { venueIndexes } from './venues.js';

/** Every index of every collection; applied by both engines before the server listens. */
export const indexes: IndexSet = {
  events: eventIndexes,
  venues: venueIndexes,
  organizers: organizerIndexes,
  categories: categoryIndexes,
  tags: tagIndexes,
  idempotency: idempotencyIndexes,
  tombstones: tombstoneIndexes,
  series: seriesIndexes,
};
