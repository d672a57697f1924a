/**
 * Measurements of the durable embedded engine (a development tool, not a test):
 *   node_modules/.bin/tsx test/durability/measure.ts [--ops 20000] [--recovery 100000] [--dir /tmp/x]
 * - write throughput with 1, 16 and 256 writes in flight: the log alone, then the storage with
 *   cheap writes (tags) and with engine-bound ones (events), the in-memory engine as a baseline;
 * - recovery time for `--recovery` events, from the log alone and from a snapshot.
 */
import { mkdtemp, open as openFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { indexes } from '../../indexes/index.js';
import { appendFileOf } from '../../src/storage/durable/files.js';
import { GroupCommitLog } from '../../src/storage/durable/group-commit.js';
import { openDurableStorage } from '../../src/storage/durable/index.js';
import { putRecord } from '../../src/storage/durable/record.js';
import { createEmbeddedStorage } from '../../src/storage/embedded/index.js';
import { type Storage } from '../../src/storage/port.js';
import { makeEventDoc, makeTagDoc } from '../helpers/factories.js';

const { values: flags } = parseArgs({
  options: {
    ops: { type: 'string', default: '20000' },
    recovery: { type: 'string', default: '100000' },
    dir: { type: 'string' },
  },
});
const OPS = Number(flags.ops);
const RECOVERY_EVENTS = Number(flags.recovery);
const root = flags.dir ?? (await mkdtemp(join(tmpdir(), 'calendar-durable-measure-')));

const WORDS = 'concert opera jazz market festival lecture theatre dance film reading choir quartet exhibition tour workshop'.split(' ');

function eventDoc(id: number) {
  const word = (k: number) => WORDS[(id * 7 + k * 13) % WORDS.length]!;
  const start = new Date(Date.UTC(2025, 0, 1) + (id % 1000) * 86_400_000);
  return makeEventDoc({
    _id: id,
    slug: `event-${id}`,
    title: `${word(1)} ${word(2)} number ${id}`,
    description: `<p>An evening of ${word(3)} and ${word(4)} in the old town hall; doors open one hour before. Tickets at the box office and online, reduced prices for students and seniors.</p>`,
    startUtc: start,
    endUtc: new Date(start.getTime() + 7_200_000),
    categoryIds: [1 + (id % 40)],
    tagIds: [100 + (id % 200), 100 + ((id * 3) % 200)],
  });
}

async function run(storage: Storage, inFlight: number, ops: number, op: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < ops) await op(next++);
    }),
  );
  void storage;
  return (performance.now() - started) / 1000;
}

const rate = (n: number, seconds: number): string => `${Math.round(n / seconds).toLocaleString('en-US')}/s`;

console.log(`directory: ${root}`);

// A. The log alone: framed records of ~650 bytes through group commit to a real file.
{
  const line = putRecord('events', { _id: 1, text: 'x'.repeat(600) });
  console.log('\nA. log alone (write + fdatasync per group commit)\nin flight | records/s | fdatasyncs');
  for (const inFlight of [1, 16, 256]) {
    const path = join(root, 'log-only.log');
    await rm(path, { force: true });
    let syncs = 0;
    const file = appendFileOf(await openFile(path, 'a'));
    const log = new GroupCommitLog({ ...file, datasync: () => ((syncs += 1), file.datasync()) }, 0);
    const ops = inFlight === 1 ? Math.min(OPS, 3000) : OPS * 5;
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => { while (next++ < ops) await log.append([line]); }));
    const seconds = (performance.now() - started) / 1000;
    console.log(`${String(inFlight).padStart(9)} | ${rate(ops, seconds).padStart(9)} | ${syncs}`);
    await log.close();
    await rm(path, { force: true });
  }
}

type Workload = { name: string; insert: (storage: Storage, id: number) => Promise<void>; update: (storage: Storage, id: number, i: number) => Promise<void>; sequence: 'posts' | 'terms' };
const workloads: Workload[] = [
  {
    name: 'B. tags (a cheap engine write: the durability overhead)',
    sequence: 'terms',
    insert: (storage, id) => storage.tags.insertOne(makeTagDoc({ _id: id, slug: `tag-${id}`, name: `Tag ${id}`, nameKey: `tag ${id}` })),
    update: async (storage, id, i) => void (await storage.tags.updateById(id, { $set: { description: `updated ${i}` } })),
  },
  {
    name: 'C. events (engine-bound: text, date and unique indexes)',
    sequence: 'posts',
    insert: (storage, id) => storage.events.insertOne(eventDoc(id)),
    update: async (storage, id, i) => void (await storage.events.updateById(id, { $set: { title: `updated ${i}`, modifiedUtc: new Date() } })),
  },
];
for (const workload of workloads) {
  console.log(`\n${workload.name}\nin flight | engine   | inserts/s (nextId + insertOne = 2 records) | updates/s (1 record)`);
  for (const inFlight of [1, 16, 256]) {
    for (const kind of ['memory', 'durable'] as const) {
      const dir = join(root, `throughput-${inFlight}`);
      await rm(dir, { recursive: true, force: true });
      const storage: Storage =
        kind === 'memory' ? createEmbeddedStorage({ indexes, reason: 'measure' }) : await openDurableStorage({ dir, indexes, reason: 'measure' });
      await storage.ensureIndexes();
      const ops = inFlight === 1 && kind === 'durable' ? Math.min(OPS, 3000) : OPS;
      const ids: number[] = [];
      const insertSeconds = await run(storage, inFlight, ops, async () => {
        const id = await storage.nextId(workload.sequence);
        ids.push(id);
        await workload.insert(storage, id);
      });
      const updateSeconds = await run(storage, inFlight, ops, (i) => workload.update(storage, ids[i]!, i));
      console.log(`${String(inFlight).padStart(9)} | ${kind.padEnd(8)} | ${rate(ops, insertSeconds).padStart(42)} | ${rate(ops, updateSeconds).padStart(20)}`);
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
}

async function directorySize(dir: string): Promise<string> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return `${(total / 2 ** 20).toFixed(1)} MiB`;
}

if (RECOVERY_EVENTS > 0) {
  const dir = join(root, 'recovery');
  await rm(dir, { recursive: true, force: true });
  // No compaction while loading: the first reopen replays the log alone.
  let storage = await openDurableStorage({ dir, indexes, reason: 'measure', compactMinBytes: 2 ** 40 });
  await storage.ensureIndexes();
  let loaded = 0;
  const loadSeconds = await run(storage, 256, RECOVERY_EVENTS, async () => {
    const id = await storage.nextId('posts');
    await storage.events.insertOne(eventDoc(id));
    loaded++;
  });
  await storage.close();
  console.log(`\n${loaded} events written in ${loadSeconds.toFixed(1)} s; log ${await directorySize(dir)}`);

  let started = performance.now();
  storage = await openDurableStorage({ dir, indexes, reason: 'measure' });
  console.log(`recovery from the log: ${((performance.now() - started) / 1000).toFixed(2)} s`, storage.stats().recovery);
  started = performance.now();
  await storage.compact();
  console.log(`compaction: ${((performance.now() - started) / 1000).toFixed(2)} s; directory ${await directorySize(dir)}`);
  await storage.close();

  started = performance.now();
  storage = await openDurableStorage({ dir, indexes, reason: 'measure' });
  console.log(`recovery from the snapshot: ${((performance.now() - started) / 1000).toFixed(2)} s`, storage.stats().recovery);
  console.log(`rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  await storage.close();
}
if (flags.dir === undefined) await rm(root, { recursive: true, force: true });
