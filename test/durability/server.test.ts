/**
 * Durability through the HTTP server: `src/server.ts` runs as a child with DATA_DIR, clients create
 * and update events; the server is stopped with SIGTERM during the load (it must finish what is in
 * flight, refuse the rest, close the storage and exit 0 within the grace period) or killed with
 * SIGKILL; after a restart on the same directory every write that got a 2xx is there with the
 * content it was acknowledged with.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { API, AUTH, makeTempDir, open, recordingLog, removeDir, type Server, startServer } from './helpers.js';

/** server.ts's SHUTDOWN_GRACE_MS. */
const GRACE_MS = 10_000;

interface Ledger {
  /** Last acknowledged title per event id, and the title of a later write that got no answer. */
  acked: Map<number, string>;
  pending: Map<number, string>;
  statuses: Map<number, number>;
  networkErrors: number;
}

const newLedger = (): Ledger => ({ acked: new Map(), pending: new Map(), statuses: new Map(), networkErrors: 0 });

/** Clients creating then renaming events until told to stop or the server is gone. */
function writeLoad(base: string, ledger: Ledger, clients: number, tag: string) {
  let stop = false;
  let acks = 0;
  const count = (status: number) => ledger.statuses.set(status, (ledger.statuses.get(status) ?? 0) + 1);
  const send = async (method: string, path: string, body: unknown): Promise<{ status: number; json: { id?: number; title?: string } } | null> => {
    try {
      const response = await fetch(`${base}${API}${path}`, { method, headers: AUTH, body: JSON.stringify(body) });
      const json = (await response.json().catch(() => ({}))) as { id?: number; title?: string };
      count(response.status);
      return { status: response.status, json };
    } catch {
      ledger.networkErrors++;
      return null;
    }
  };
  const done = Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let n = 0; !stop; n++) {
        const title = `Load ${tag} ${c} ${n}`;
        const created = await send('POST', '/events', { title, start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' });
        if (created === null) return;
        if (created.status !== 201) continue;
        const id = created.json.id!;
        ledger.acked.set(id, title);
        acks++;
        const renamed = `${title} renamed`;
        ledger.pending.set(id, renamed);
        const updated = await send('POST', `/events/${id}`, { title: renamed });
        if (updated === null) return;
        if (updated.status === 200) {
          ledger.acked.set(id, renamed);
          ledger.pending.delete(id);
          acks++;
        }
      }
    }),
  );
  return {
    acks: () => acks,
    stop: async () => {
      stop = true;
      await done;
    },
    done,
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Every acknowledged write is served: the acknowledged title, or a later one still unanswered. */
async function checkAll(base: string, ledger: Ledger): Promise<void> {
  const problems: string[] = [];
  for (const [id, title] of ledger.acked) {
    const response = await fetch(`${base}${API}/events/${id}`, { headers: AUTH });
    if (response.status !== 200) {
      problems.push(`event ${id}: ${response.status}`);
      continue;
    }
    const { title: stored } = (await response.json()) as { title: string };
    if (stored !== title && stored !== ledger.pending.get(id)) problems.push(`event ${id}: title "${stored}", acknowledged "${title}"`);
  }
  expect(problems).toEqual([]);
}

describe('durability through the HTTP server', () => {
  const dirs: string[] = [];
  const running: Server[] = [];
  afterAll(async () => {
    for (const server of running) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    for (const dir of dirs) await removeDir(dir);
  });

  const timings: string[] = [];
  const mark = (() => {
    let last = Date.now();
    return (what: string) => {
      const now = Date.now();
      timings.push(`${what} ${now - last} ms`);
      last = now;
    };
  })();

  it('SIGKILL under load loses nothing acknowledged; SIGTERM under load finishes in-flight writes, flushes, exits 0', { timeout: 60_000 }, async () => {
    const dir = await makeTempDir('calendar-durable-http-');
    dirs.push(dir);
    const ledger = newLedger();

    // 1. SIGKILL during a write load.
    mark('start');
    let server = await startServer(dir);
    running.push(server);
    mark('first server up');
    expect(server.output()).toContain('durable in');
    let load = writeLoad(server.base, ledger, 16, 'a');
    await waitFor(() => load.acks() >= 100, 20_000);
    server.child.kill('SIGKILL');
    expect(await server.exited).toMatchObject({ signal: 'SIGKILL' });
    await load.stop();
    mark('SIGKILL phase');

    // 2. Restart: every acknowledged write is there. Then SIGTERM during a write load.
    server = await startServer(dir);
    running.push(server);
    mark('second server up');
    await checkAll(server.base, ledger);
    const listed = await fetch(`${server.base}${API}/events?per_page=1&start_date=2030-01-01&end_date=2030-12-31`, { headers: AUTH });
    expect(Number(listed.headers.get('x-tec-total'))).toBeGreaterThanOrEqual(ledger.acked.size);
    const statusesBefore = new Set(ledger.statuses.keys());
    ledger.statuses.clear();
    load = writeLoad(server.base, ledger, 16, 'b');
    const acksBefore = ledger.acked.size;
    await waitFor(() => load.acks() >= 100, 20_000);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const terminated = await server.exited;
    await load.stop();
    const log = server
      .output()
      .split('\n')
      .filter((line) => !line.includes('"reqId"'))
      .join('\n');
    expect(terminated, log).toMatchObject({ code: 0, signal: null });
    expect(terminated.at - signalledAt).toBeLessThan(GRACE_MS);
    expect(log).toContain('shut down cleanly');
    // Nothing but acknowledgements and refusals (503 while closing): no failure leaks out.
    for (const status of ledger.statuses.keys()) expect([200, 201, 503]).toContain(status);
    mark('SIGTERM phase');

    // 3. The directory as the server left it: every acknowledged write, both runs.
    const storage = await open(dir, { log: recordingLog() });
    try {
      const problems: string[] = [];
      for (const [id, title] of ledger.acked) {
        const stored = await storage.events.findById(id);
        if (stored === null) problems.push(`event ${id}: missing`);
        else if (stored.title !== title && stored.title !== ledger.pending.get(id)) problems.push(`event ${id}: "${stored.title}", acknowledged "${title}"`);
      }
      expect(problems).toEqual([]);
      expect(await storage.events.count({})).toBeGreaterThanOrEqual(ledger.acked.size);
    } finally {
      await storage.close();
    }
    mark('checked');
    console.log(
      `acknowledged events: ${acksBefore} before the SIGKILL, ${ledger.acked.size - acksBefore} more before the SIGTERM; ` +
        `responses: ${JSON.stringify([...statusesBefore])} then ${JSON.stringify(Object.fromEntries(ledger.statuses))}; ` +
        `network errors (server gone): ${ledger.networkErrors}; ${timings.join(', ')}`,
    );
  });
});
