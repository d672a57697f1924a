/**
 * Idempotency-Key records live in the durable embedded engine's log like every collection: after a
 * restart on the same directory, a retry of a create is still answered with its first response
 * and creates nothing; a pending record (the attempt's outcome unknown) keeps its reserved id.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createFaultyStorage } from '../helpers/faulty-storage.js';
import { API, EDITOR, json, makeEventInput, openTestApp } from '../helpers/app.js';
import { makeTempDir, open, removeDir } from './helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

describe('durable embedded engine: Idempotency-Key across a restart', () => {
  it('replays a stored success, and finishes an unconfirmed create under its reserved id', async () => {
    const dir = await makeTempDir();
    dirs.push(dir);
    const send = (app: Awaited<ReturnType<typeof openTestApp>>['app'], title: string, key: string) =>
      app.inject({ method: 'POST', url: `${API}/events`, headers: { ...EDITOR, 'idempotency-key': key }, payload: makeEventInput({ title }) });

    const before = await openTestApp({
      name: 'embedded',
      async open() {
        const faulty = createFaultyStorage(await open(dir));
        // The second event insert is stored, then reported as unconfirmed.
        faulty.inject({ kind: 'unconfirmed', only: (name) => name === 'events.insertOne', nth: 2 });
        return faulty;
      },
    });
    const created = await send(before.app, 'Survives a restart', 'restart-1');
    expect(created.statusCode).toBe(201);
    expect((await send(before.app, 'Unconfirmed before a restart', 'restart-2')).statusCode).toBe(503);
    await before.close();

    const after = await openTestApp({ name: 'embedded', open: () => open(dir) });
    try {
      const replay = await send(after.app, 'Survives a restart', 'restart-1');
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(created.body);

      const [unconfirmed] = await after.storage.events.find({ filter: { title: 'Unconfirmed before a restart' } });
      expect(unconfirmed).toBeDefined();
      const retry = await send(after.app, 'Unconfirmed before a restart', 'restart-2');
      expect(retry.statusCode, retry.body).toBe(201);
      expect(json(retry).id).toBe(unconfirmed!._id);
      expect(await after.storage.events.count({})).toBe(2);
    } finally {
      await after.close();
    }
  });
});
