/**
 * The write load of the crash test (crash.test.ts), run as a child process that the test kills
 * with SIGKILL at a random moment:
 *
 *   node --import tsx test/durability/crash-child.ts <dataDir> <seed>
 *
 * (tsx as a loader, not node_modules/.bin/tsx: that wrapper runs the script in a grandchild, which
 * a SIGKILL of the wrapper would leave running.)
 *
 * Opens the durable storage on <dataDir> and writes until killed: workers insert venues, events and
 * tags, update them, update many events at once and delete some. Each worker owns the documents it
 * created and writes them one at a time, so at most one write per document is ever unacknowledged.
 * One JSON line per event on stdout: `try` before a write, `ack` only once it resolved (the
 * acknowledgement).
 */
import { indexes } from '../../indexes/index.js';
import { openLmdbStorage } from '../../src/storage/lmdb/index.js';
import { makeEventDoc, makeTagDoc, makeVenueDoc } from '../helpers/factories.js';
import { crashDescription } from './helpers.js';

const [dir, seedArg] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: crash-child.ts <dataDir> <seed>');

let seed = Number(seedArg ?? 1) >>> 0 || 1;
/** xorshift32: each round of the test runs a different, reproducible load. */
function random(): number {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 2 ** 32;
}

const say = (line: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

const storage = await openLmdbStorage({
  dir,
  indexes,
  reason: 'crash test',
  log: { info: (msg) => process.stderr.write(`${msg}\n`), warn: (msg) => process.stderr.write(`WARN ${msg}\n`) },
});
await storage.ensureIndexes();
say({ t: 'ready', opened: storage.stats() });

const WORKERS = 16;

async function worker(w: number): Promise<never> {
  const venues: number[] = [];
  const events: number[] = [];
  const versions = new Map<string, number>();
  let batch = 0;
  for (;;) {
    const dice = random();
    if (dice < 0.15 || venues.length === 0) {
      const id = await storage.nextId('posts');
      say({ t: 'try', op: 'insert', c: 'venues', id });
      await storage.venues.insertOne(makeVenueDoc({ _id: id, slug: `venue-${id}`, name: `Venue ${id} v0`, nameKey: `venue ${id}` }));
      venues.push(id);
      versions.set(`venues:${id}`, 0);
      say({ t: 'ack', op: 'insert', c: 'venues', id });
    } else if (dice < 0.45) {
      const id = await storage.nextId('posts');
      const venueId = venues[Math.floor(random() * venues.length)]!;
      say({ t: 'try', op: 'insert', c: 'events', id, venueId });
      await storage.events.insertOne(
        makeEventDoc({
          _id: id,
          slug: `event-${id}`,
          title: `Event ${id} v0`,
          description: crashDescription(id),
          excerpt: 'b0',
          venueId,
          startUtc: new Date(Date.UTC(2026, 0, 1) + id * 60_000),
        }),
      );
      events.push(id);
      versions.set(`events:${id}`, 0);
      say({ t: 'ack', op: 'insert', c: 'events', id, venueId });
    } else if (dice < 0.8) {
      const onEvent = events.length > 0 && random() < 0.7;
      const c = onEvent ? 'events' : 'venues';
      const pool = onEvent ? events : venues;
      const id = pool[Math.floor(random() * pool.length)]!;
      const v = versions.get(`${c}:${id}`)! + 1;
      const modified = new Date(Date.UTC(2026, 0, 1) + v * 1000 + id);
      say({ t: 'try', op: 'update', c, id, v });
      if (onEvent) {
        await storage.events.updateById(id, { $set: { title: `Event ${id} v${v}`, cost: [String(v)], modifiedUtc: modified } });
      } else {
        await storage.venues.updateById(id, { $set: { name: `Venue ${id} v${v}`, modifiedUtc: modified } });
      }
      versions.set(`${c}:${id}`, v);
      say({ t: 'ack', op: 'update', c, id, v, modified: modified.toISOString() });
    } else if (dice < 0.9 && events.length > 0) {
      batch += 1;
      const ids = [...events];
      say({ t: 'try', op: 'many', ids, b: batch, w });
      const count = await storage.events.updateMany({ _id: { $in: ids } }, { $set: { excerpt: `b${batch}` } });
      say({ t: 'ack', op: 'many', ids, b: batch, w, count });
    } else if (dice < 0.95 && events.length > 1) {
      const id = events.splice(Math.floor(random() * events.length), 1)[0]!;
      say({ t: 'try', op: 'delete', c: 'events', id });
      await storage.events.deleteById(id);
      say({ t: 'ack', op: 'delete', c: 'events', id });
    } else {
      const id = await storage.nextId('terms');
      say({ t: 'try', op: 'insert', c: 'tags', id });
      await storage.tags.insertOne(makeTagDoc({ _id: id, slug: `tag-${id}`, name: `Tag ${id}`, nameKey: `tag ${id}` }));
      say({ t: 'ack', op: 'insert', c: 'tags', id });
    }
  }
}

await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
