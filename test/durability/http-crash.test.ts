/**
 * kill -9 of the server under a load of event creates that each make several writes: 16 clients
 * post events with a nested new venue and two new categories named in the request, and the server
 * (`src/server.ts` with DATA_DIR) is killed with SIGKILL at a random moment. Three rounds on the
 * same directory, each server opening what the previous one left. After each kill the directory
 * must hold every event that got a 201, with the venue and categories it was answered with, and
 * nothing half there: no event naming a venue or category that is missing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type EventDoc } from '../../src/storage/port.js';
import { API, AUTH, makeTempDir, open, recordingLog, removeDir, type Server, startServer } from './helpers.js';

interface Acked {
  id: number;
  title: string;
  venue: { id: number; name: string };
  categories: Array<{ id: number; name: string }>;
}

const CLIENTS = 16;
/** Acknowledged creates a run must have checked over its rounds. */
const MIN_ACKS = 31;

/** Clients creating events until the server is gone; every 201 is recorded. */
function createLoad(base: string, round: number, acked: Acked[]) {
  let acks = 0;
  const done = Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; ; n++) {
        const tag = `${round}-${client}-${n}`;
        const payload = {
          title: `Crash event ${tag}`,
          start_date: '2031-03-01 10:00:00',
          end_date: '2031-03-01 12:00:00',
          venue: { venue: `Crash hall ${tag}`, city: 'Köln', address: `Ringstraße ${n}` },
          categories: [`Crash category ${tag} a`, `Crash category ${tag} b`],
        };
        let response: Response;
        try {
          response = await fetch(`${base}${API}/events`, { method: 'POST', headers: AUTH, body: JSON.stringify(payload) });
        } catch {
          return;
        }
        const body = (await response.json().catch(() => null)) as {
          id: number;
          title: string;
          venue: { id: number; venue: string };
          categories: Array<{ id: number; name: string }>;
        } | null;
        if (response.status !== 201 || body === null) continue;
        acked.push({
          id: body.id,
          title: body.title,
          venue: { id: body.venue.id, name: body.venue.venue },
          categories: body.categories.map(({ id, name }) => ({ id, name })),
        });
        acks++;
      }
    }),
  );
  return { acks: () => acks, done };
}

/** Every acknowledged create is there as answered, and no event names a missing venue or category. */
async function verify(dir: string, acked: Acked[]): Promise<number> {
  const storage = await open(dir, { log: recordingLog() });
  try {
    const problems: string[] = [];
    for (const a of acked) {
      const event = await storage.events.findById(a.id);
      if (event === null) {
        problems.push(`event ${a.id}: acknowledged, missing`);
        continue;
      }
      if (event.title !== a.title) problems.push(`event ${a.id}: title "${event.title}", acknowledged "${a.title}"`);
      if (event.venueId !== a.venue.id) problems.push(`event ${a.id}: venue ${event.venueId}, acknowledged ${a.venue.id}`);
      if (JSON.stringify(event.categoryIds) !== JSON.stringify(a.categories.map((c) => c.id)))
        problems.push(`event ${a.id}: categories ${JSON.stringify(event.categoryIds)}`);
      if ((await storage.venues.findById(a.venue.id))?.name !== a.venue.name) problems.push(`venue ${a.venue.id} (${a.venue.name}): missing or renamed`);
      for (const c of a.categories)
        if ((await storage.categories.findById(c.id))?.name !== c.name) problems.push(`category ${c.id} (${c.name}): missing or renamed`);
    }
    const events: EventDoc[] = await storage.events.find({ filter: {}, sort: [['_id', 1]] });
    const venueIds = new Set((await storage.venues.find({ filter: {} })).map((v) => v._id));
    const categories = await storage.categories.find({ filter: {} });
    const categoryIds = new Set(categories.map((c) => c._id));
    for (const event of events) {
      if (event.venueId !== null && !venueIds.has(event.venueId)) problems.push(`event ${event._id}: its venue ${event.venueId} is missing`);
      for (const id of event.categoryIds) if (!categoryIds.has(id)) problems.push(`event ${event._id}: its category ${id} is missing`);
    }
    if (new Set(categories.map((c) => c.name)).size !== categories.length) problems.push('categories: duplicate names');
    const topPost = Math.max(0, ...events.map((e) => e._id), ...venueIds);
    if ((await storage.nextId('posts')) <= topPost) problems.push(`posts sequence not above ${topPost}`);
    expect(problems).toEqual([]);
    return events.length;
  } finally {
    await storage.close();
  }
}

describe('durability through the HTTP server: kill -9 during creates with nested venues and new categories', () => {
  const dirs: string[] = [];
  const running: Server[] = [];
  afterAll(async () => {
    for (const server of running) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    for (const dir of dirs) await removeDir(dir);
  });

  it('keeps every acknowledged create whole over three kills', { timeout: 90_000 }, async () => {
    const dir = await makeTempDir('calendar-durable-http-kill-');
    dirs.push(dir);
    const acked: Acked[] = [];
    const report: string[] = [];
    for (let round = 1; round <= 3; round++) {
      const server = await startServer(dir);
      running.push(server);
      const load = createLoad(server.base, round, acked);
      // A random moment once the load runs: early in a request or late, mid-commit or between.
      const afterMs = 150 + Math.floor(Math.random() * 1200);
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      // The last server serves on until the run has enough acknowledged creates to check, however
      // slowly a busy machine lets the earlier ones answer.
      while (round === 3 && acked.length < MIN_ACKS && server.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 10));
      server.child.kill('SIGKILL');
      expect(await server.exited).toMatchObject({ signal: 'SIGKILL' });
      await load.done;
      const events = await verify(dir, acked);
      report.push(`round ${round}: killed after ${afterMs} ms, ${load.acks()} creates acknowledged; ${events} events after restart`);
    }
    console.log(report.join('\n'));
    expect(acked.length).toBeGreaterThanOrEqual(MIN_ACKS);
  });
});
