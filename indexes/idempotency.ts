import { type IndexDefinition } from '../src/storage/port.js';

/** How long an Idempotency-Key is remembered (src/services/idempotency.ts uses the same window). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

export const idempotencyIndexes: IndexDefinition[] = [
  // MongoDB deletes a record a day after it was created; the embedded engine sweeps expired
  // records itself, finding them (oldest first) through this same index.
  { name: 'idempotency_created_ttl', key: { createdAt: 1 }, expireAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS },
] satisfies IndexDefinition[];
