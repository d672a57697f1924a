import { type IndexDefinition } from '../src/storage/port.js';

export const tombstoneIndexes: IndexDefinition[] = [
  // GET /deleted: tombstones since an instant, in deletion order (ties by id); the pruning of
  // tombstones past TOMBSTONE_DAYS reads the oldest first through it too. Not a TTL index: the
  // retention is a setting, and an index's options cannot follow a setting without a rebuild.
  { name: 'tombstones_deleted_id', key: { deletedAt: 1, _id: 1 } },
] satisfies IndexDefinition[];
