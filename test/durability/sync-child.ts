/**
 * The writes of the sync test (sync.test.ts), run under strace:
 *
 *   node --import tsx test/durability/sync-child.ts <dataDir>
 *
 * Writes `try <n>` to stdout before each write and `ack <n>` once it resolved, with a plain
 * write(2) each, so the trace shows where every acknowledgement falls among the file syncs.
 */
import { writeSync } from 'node:fs';
import { makeTagDoc } from '../helpers/factories.js';
import { open } from './helpers.js';

const storage = await open(process.argv[2]!);
for (let n = 1; n <= 5; n++) {
  writeSync(1, `try ${n}\n`);
  await storage.tags.insertOne(makeTagDoc({ _id: n, slug: `tag-${n}`, name: `Tag ${n}`, nameKey: `tag ${n}` }));
  writeSync(1, `ack ${n}\n`);
}
await storage.close();
