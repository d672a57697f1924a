import { formatWallClock } from '../lib/dates/index.js';
import { type TombstoneResponse } from '../schemas/sync.js';
import { type TombstoneDoc } from '../storage/port.js';

/** A tombstone as GET /deleted lists it: `deleted_at` a UTC wall clock like the other `*_utc` fields. */
export function serializeTombstone(doc: TombstoneDoc): TombstoneResponse {
  return { type: doc.type, id: doc.recordId, deleted_at: formatWallClock(doc.deletedAt, 'UTC') };
}
