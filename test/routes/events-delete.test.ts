/**
 * DELETE /events/{id} and /events/by-slug/{slug}: trash semantics (EventDeletionCest).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, VIEWER, createEventOk, insertVenue, json, openTestApp, snapshot } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

describe.each(engines)('$name engine: deleting events', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const del = (url: string, headers: Record<string, string> = EDITOR) => t.app.inject({ method: 'DELETE', url, headers });
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('moves the event to the trash: 200 with status trash, then 410 on a second delete', async () => {
    const venue = await insertVenue(t.storage);
    const created = await createEventOk(t.app, { title: 'Trash me', venue: venue._id });
    const id = created.id as number;

    const first = await del(`${API}/events/${id}`);
    expect(first.statusCode).toBe(200);
    const body = json(first);
    const { status, modified: _m, modified_utc: _mu, ...rest } = body;
    const { status: _s, modified: _cm, modified_utc: _cmu, ...createdRest } = created;
    expect(status).toBe('trash');
    // The object as it is after trashing, in the default context (no json_ld).
    expect(rest).toEqual(createdRest);
    expect(body).not.toHaveProperty('json_ld');

    // Soft delete: the record is still there.
    expect((await t.storage.events.findById(id))?.status).toBe('trash');

    const second = await del(`${API}/events/${id}`);
    expect(second.statusCode).toBe(410);
    expect(json(second)).toEqual({ code: 'event-is-in-trash', message: 'The event is already trashed', data: { status: 410 } });
  });

  it('answers reads of a trashed event with 403 event-no-longer-available, for everybody', async () => {
    const created = await createEventOk(t.app, { title: 'Gone for good' });
    const id = created.id as number;
    expect((await del(`${API}/events/${id}`)).statusCode).toBe(200);
    for (const headers of [{}, VIEWER, EDITOR]) {
      for (const url of [`${API}/events/${id}`, `${API}/events/by-slug/gone-for-good`, `${API}/events/${id}?context=edit`]) {
        const response = await get(url, headers);
        expect(response.statusCode).toBe(403);
        expect(json(response)).toEqual({ code: 'event-no-longer-available', message: 'This event is no longer available', data: { status: 403 } });
      }
    }
  });

  it('deletes by slug too', async () => {
    const created = await createEventOk(t.app, { title: 'Slug Trash' });
    const response = await del(`${API}/events/by-slug/slug-trash`);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ id: created.id, status: 'trash' });
    expect((await del(`${API}/events/by-slug/slug-trash`)).statusCode).toBe(410);
  });

  it('ignores force=true: still a trash, never a permanent delete', async () => {
    const created = await createEventOk(t.app, { title: 'Forced' });
    const response = await del(`${API}/events/${created.id as number}?force=true`);
    expect(response.statusCode).toBe(200);
    expect(json(response).status).toBe('trash');
    expect(await t.storage.events.findById(created.id as number)).not.toBeNull();
  });

  it('answers an unknown id or slug with 404 rest-event-not-found', async () => {
    const response = await del(`${API}/events/23`);
    expect(response.statusCode).toBe(404);
    expect(json(response)).toEqual({ code: 'rest-event-not-found', message: 'Event with ID 23 does not exist.', data: { status: 404 } });
    const bySlug = await del(`${API}/events/by-slug/never-was`);
    expect(bySlug.statusCode).toBe(404);
    expect(json(bySlug).code).toBe('rest-event-not-found');
  });

  it('refuses anonymous (401) and viewer (403) deletes, changing nothing', async () => {
    const created = await createEventOk(t.app, { title: 'Protected from deletion' });
    const snap = await snapshot(t.storage);
    for (const url of [`${API}/events/${created.id as number}`, `${API}/events/by-slug/protected-from-deletion`]) {
      const anonymous = await del(url, {});
      expect(anonymous.statusCode).toBe(401);
      expect(json(anonymous)).toMatchObject({ code: 'rest_forbidden', data: { status: 401 } });
      const viewer = await del(url, VIEWER);
      expect(viewer.statusCode).toBe(403);
      expect(json(viewer)).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } });
    }
    // Anonymous 401 comes before the existence check: no leak of which ids exist.
    const unknown = await del(`${API}/events/999999`, {});
    expect(unknown.statusCode).toBe(401);
    expect(await snapshot(t.storage)).toEqual(snap);
  });

  it('lets the editor update a trashed event (no trash check on update), keeping it trashed', async () => {
    const created = await createEventOk(t.app, { title: 'Trashed edit' });
    expect((await del(`${API}/events/${created.id as number}`)).statusCode).toBe(200);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `${API}/events/${created.id as number}`,
      headers: EDITOR,
      payload: { title: 'Trashed edit 2' },
    });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ title: 'Trashed edit 2', status: 'trash' });
  });
});
