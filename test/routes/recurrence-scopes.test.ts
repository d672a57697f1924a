/**
 * PUT/PATCH/DELETE of an occurrence with `scope`: `this` makes an exception that keeps its id;
 * `all` changes the template and every non-exception occurrence (a time shift across DST keeps the
 * wall clock; a rule change keeps the ids whose dates survive and leaves tombstones for the
 * others); `following` splits the series; DELETE with each scope; If-Match; single events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EDITOR, type TestApp, createEventOk, json, openTestApp } from '../helpers/app.js';
import { routeEnginesUnderTest } from '../helpers/engines.js';

const { engines } = await routeEnginesUnderTest();

type Body = Record<string, unknown>;
const NOW = new Date('2026-03-01T10:00:00Z');

describe.each(engines)('$name engine: scopes of occurrence writes', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(engine, {}, undefined, () => NOW);
  });
  afterAll(async () => {
    await t?.close();
  });

  const write = (method: 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: Body, headers: Record<string, string> = EDITOR) =>
    t.app.inject({ method, url: `${API}${url}`, headers, ...(payload === undefined ? {} : { payload }) });
  const read = async (url: string) => json(await t.app.inject({ method: 'GET', url: `${API}${url}`, headers: EDITOR }));
  /** The live occurrences of a series, first first. */
  const occurrences = async (seriesId: unknown) =>
    (await read(`/events?post_parent=${String(seriesId)}&start_date=2000-01-01&per_page=50&status=publish,draft,future,pending,private`)).events as Body[];
  /** A weekly series of `count` Tuesdays from 17 March 2026, 19:00–21:00 in Berlin (DST on 29 March). */
  const tuesdays = (title: string, count: number, rrule = `FREQ=WEEKLY;COUNT=${count}`) =>
    createEventOk(t.app, {
      title,
      timezone: 'Europe/Berlin',
      start_date: '2026-03-17 19:00:00',
      end_date: '2026-03-17 21:00:00',
      recurrence: { rrule },
    });

  it('all and following: a new title is searchable on every occurrence it reaches, the old one no longer', async () => {
    const series = await tuesdays('Glazing workshop', 4);
    const ids = (await occurrences(series.id)).map((o) => o.id);
    const found = async (words: string) =>
      ((await read(`/events?search=${encodeURIComponent(words)}&start_date=2000-01-01&per_page=50`)).events as Body[] | undefined)?.map((e) => e.id) ?? [];
    expect((await write('PATCH', `/events/${String(ids[0])}?scope=all`, { title: 'Raku firing' })).statusCode).toBe(200);
    expect(await found('raku firing')).toEqual(ids);
    expect(await found('glazing workshop')).toEqual([]);
    expect((await write('PATCH', `/events/${String(ids[2])}?scope=following`, { title: 'Kiln evening' })).statusCode).toBe(200);
    expect(await found('kiln evening')).toEqual(ids.slice(2));
    expect(await found('raku firing')).toEqual(ids.slice(0, 2));
  });

  it('this: the occurrence becomes an exception, keeps its id and date; the others are unchanged', async () => {
    const series = await tuesdays('Scope this', 3);
    const [first, second, third] = await occurrences(series.id);
    const response = await write('PATCH', `/events/${String(second!.id)}`, { title: 'Special evening', start_date: '2026-03-24 18:00:00' });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toMatchObject({ id: second!.id, title: 'Special evening', is_exception: true, occurrence_date: '2026-03-24', series_id: series.id });
    expect(json(response).start_date).toBe('2026-03-24 18:00:00');
    const after = await occurrences(series.id);
    expect(after.map((e) => e.id)).toEqual([first!.id, second!.id, third!.id]);
    expect(after.map((e) => e.title)).toEqual(['Scope this', 'Special evening', 'Scope this']);
    const seriesRead = await read(`/series/${String(series.id)}`);
    expect(seriesRead.exceptions).toEqual([
      { id: second!.id, occurrence_date: '2026-03-24', rest_url: expect.stringContaining(`/events/${String(second!.id)}`) },
    ]);
    expect(seriesRead.title).toBe('Scope this');
  });

  it('all: template and non-exceptions change, exceptions stay; a time shift keeps the wall clock across DST', async () => {
    const series = await tuesdays('Scope all', 4);
    const before = await occurrences(series.id);
    await write('PATCH', `/events/${String(before[1]!.id)}`, { title: 'Exception' });
    const exception = (await occurrences(series.id))[1]!;
    const response = await write('PATCH', `/events/${String(before[2]!.id)}?scope=all`, {
      title: 'Renamed',
      start_date: '2026-03-31 20:00:00',
      end_date: '2026-03-31 22:30:00',
    });
    expect(response.statusCode, response.body).toBe(200);
    const after = await occurrences(series.id);
    expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
    expect(after.map((e) => e.title)).toEqual(['Renamed', 'Exception', 'Renamed', 'Renamed']);
    expect(after.map((e) => [e.start_date, e.end_date])).toEqual([
      ['2026-03-17 20:00:00', '2026-03-17 22:30:00'],
      [exception.start_date, exception.end_date],
      ['2026-03-31 20:00:00', '2026-03-31 22:30:00'],
      ['2026-04-07 20:00:00', '2026-04-07 22:30:00'],
    ]);
    expect(after.map((e) => e.utc_start_date)).toEqual(['2026-03-17 19:00:00', exception.utc_start_date, '2026-03-31 18:00:00', '2026-04-07 18:00:00']);
    expect({ ...after[1], modified: 0, modified_utc: 0 }).toEqual({ ...exception, modified: 0, modified_utc: 0 });
    const seriesRead = await read(`/series/${String(series.id)}`);
    expect(seriesRead).toMatchObject({ title: 'Renamed', start_date: '2026-03-17 20:00:00', end_date: '2026-03-17 22:30:00' });
  });

  it('all: a new rule keeps the ids of surviving dates, writes new ones, trashes the rest with tombstones', async () => {
    const series = await tuesdays('Rule change', 4);
    const before = await occurrences(series.id);
    const longer = await write('PATCH', `/events/${String(before[0]!.id)}?scope=all`, { recurrence: { rrule: 'FREQ=WEEKLY;COUNT=6' } });
    expect(longer.statusCode, longer.body).toBe(200);
    const six = await occurrences(series.id);
    expect(six).toHaveLength(6);
    expect(six.slice(0, 4).map((e) => e.id)).toEqual(before.map((e) => e.id));

    const shorter = await write('PATCH', `/events/${String(before[0]!.id)}?scope=all`, { recurrence: { rrule: 'FREQ=WEEKLY;COUNT=2' } });
    expect(shorter.statusCode, shorter.body).toBe(200);
    expect((await occurrences(series.id)).map((e) => e.id)).toEqual(before.slice(0, 2).map((e) => e.id));
    expect((await read(`/series/${String(series.id)}`)).occurrences).toBe(2);
    const deleted = await read('/deleted?since=2026-02-28&per_page=50');
    const gone = (deleted.deleted as Body[]).map((d) => d.id);
    for (const removed of six.slice(2)) expect(gone).toContain(removed.id);
    expect(gone).not.toContain(before[0]!.id);
  });

  it('all: moving a day keeps ids when the rule follows the start, and is a 400 when the rule names the days', async () => {
    const plain = await tuesdays('Day move', 3);
    const before = await occurrences(plain.id);
    const moved = await write('PATCH', `/events/${String(before[0]!.id)}?scope=all`, { start_date: '2026-03-18 19:00:00', end_date: '2026-03-18 21:00:00' });
    expect(moved.statusCode, moved.body).toBe(200);
    const after = await occurrences(plain.id);
    expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
    expect(after.map((e) => [e.occurrence_date, e.start_date])).toEqual([
      ['2026-03-18', '2026-03-18 19:00:00'],
      ['2026-03-25', '2026-03-25 19:00:00'],
      ['2026-04-01', '2026-04-01 19:00:00'],
    ]);

    const named = await tuesdays('Named days', 3, 'FREQ=WEEKLY;BYDAY=TU;COUNT=3');
    const [first] = await occurrences(named.id);
    const refused = await write('PATCH', `/events/${String(first!.id)}?scope=all`, { start_date: '2026-03-18 19:00:00', end_date: '2026-03-18 21:00:00' });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys((json(refused).data as { params: Body }).params)).toEqual(['start_date']);
    const withRule = await write('PATCH', `/events/${String(first!.id)}?scope=all`, {
      start_date: '2026-03-18 19:00:00',
      end_date: '2026-03-18 21:00:00',
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=WE;COUNT=3' },
    });
    expect(withRule.statusCode, withRule.body).toBe(200);
    expect((await occurrences(named.id)).map((e) => e.start_date)).toEqual(['2026-03-18 19:00:00', '2026-03-25 19:00:00', '2026-04-01 19:00:00']);
  });

  it('following: splits the series; the later occurrences keep their ids and move to the new series', async () => {
    const series = await tuesdays('Split me', 6);
    const before = await occurrences(series.id);
    const response = await write('PATCH', `/events/${String(before[3]!.id)}?scope=following`, { title: 'Later part', end_date: '2026-04-07 22:00:00' });
    expect(response.statusCode, response.body).toBe(200);
    const moved = json(response);
    const newId = moved.series_id as number;
    expect(newId).not.toBe(series.id);
    expect(moved).toMatchObject({ id: before[3]!.id, post_parent: newId, title: 'Later part', end_date: '2026-04-07 22:00:00' });

    expect((await occurrences(series.id)).map((e) => e.id)).toEqual(before.slice(0, 3).map((e) => e.id));
    const later = await occurrences(newId);
    expect(later.map((e) => e.id)).toEqual(before.slice(3).map((e) => e.id));
    expect(later.map((e) => e.title)).toEqual(['Later part', 'Later part', 'Later part']);
    expect(later.map((e) => e.end_date)).toEqual(['2026-04-07 22:00:00', '2026-04-14 22:00:00', '2026-04-21 22:00:00']);

    const old = await read(`/series/${String(series.id)}`);
    expect(old).toMatchObject({ title: 'Split me', occurrences: 3 });
    const split = await read(`/series/${String(newId)}`);
    expect(split).toMatchObject({ title: 'Later part', occurrences: 3, start_date: '2026-04-07 19:00:00', slug: 'split-me-2' });
  });

  it('following on the first occurrence is all', async () => {
    const series = await tuesdays('From the start', 2);
    const [first] = await occurrences(series.id);
    const response = await write('PATCH', `/events/${String(first!.id)}?scope=following`, { title: 'Whole series' });
    expect(json(response).series_id).toBe(series.id);
    expect((await occurrences(series.id)).map((e) => e.title)).toEqual(['Whole series', 'Whole series']);
  });

  it('DELETE this, following and all', async () => {
    const series = await tuesdays('Deletions', 6);
    const ids = (await occurrences(series.id)).map((e) => e.id);
    const one = await write('DELETE', `/events/${String(ids[1])}`);
    expect(one.statusCode, one.body).toBe(200);
    expect(json(one).status).toBe('trash');
    const afterOne = await read(`/series/${String(series.id)}`);
    expect((afterOne.recurrence as Body).exdates).toEqual(['2026-03-24']);
    expect(afterOne.occurrences).toBe(5);
    expect((await write('DELETE', `/events/${String(ids[1])}`)).statusCode).toBe(410);

    const following = await write('DELETE', `/events/${String(ids[4])}?scope=following`);
    expect(following.statusCode, following.body).toBe(200);
    expect((await occurrences(series.id)).map((e) => e.id)).toEqual([ids[0], ids[2], ids[3]]);
    expect((await read(`/series/${String(series.id)}`)).occurrences).toBe(3);

    const all = await write('DELETE', `/events/${String(ids[2])}?scope=all`);
    expect(all.statusCode, all.body).toBe(200);
    expect(await occurrences(series.id)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `${API}/series/${String(series.id)}` })).statusCode).toBe(403);
    const gone = ((await read('/deleted?since=2026-02-28&per_page=50')).deleted as Body[]).map((d) => d.id);
    for (const id of ids) expect(gone).toContain(id);
  });

  it('If-Match works with a scope: a stale tag is 412 and changes nothing', async () => {
    const series = await tuesdays('Preconditions', 2);
    const [first] = await occurrences(series.id);
    const current = await t.app.inject({ method: 'GET', url: `${API}/events/${String(first!.id)}`, headers: EDITOR });
    const stale = await write('PATCH', `/events/${String(first!.id)}?scope=all`, { title: 'Nope' }, { ...EDITOR, 'if-match': '"stale"' });
    expect(stale.statusCode).toBe(412);
    expect((await occurrences(series.id)).map((e) => e.title)).toEqual(['Preconditions', 'Preconditions']);
    const fresh = await write('PATCH', `/events/${String(first!.id)}?scope=all`, { title: 'Yes' }, { ...EDITOR, 'if-match': String(current.headers.etag) });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect((await occurrences(series.id)).map((e) => e.title)).toEqual(['Yes', 'Yes']);
    const staleDelete = await write('DELETE', `/events/${String(first!.id)}?scope=all`, undefined, { ...EDITOR, 'if-match': String(current.headers.etag) });
    expect(staleDelete.statusCode).toBe(412);
  });

  it('refuses a scope other than this on a single event, recurrence on one, recurrence with scope this, and an unknown scope', async () => {
    const single = await createEventOk(t.app, { title: 'Single' });
    const paramsOf = (body: string) => Object.keys((JSON.parse(body) as { data: { params: Body } }).data.params);
    for (const scope of ['all', 'following']) {
      const patched = await write('PATCH', `/events/${String(single.id)}?scope=${scope}`, { title: 'x' });
      expect(patched.statusCode).toBe(400);
      expect(paramsOf(patched.body)).toEqual(['scope']);
      const deleted = await write('DELETE', `/events/${String(single.id)}?scope=${scope}`);
      expect(deleted.statusCode).toBe(400);
    }
    const withRule = await write('PATCH', `/events/${String(single.id)}`, { recurrence: { rrule: 'FREQ=DAILY;COUNT=2' } });
    expect(paramsOf(withRule.body)).toEqual(['recurrence']);
    expect((await read(`/events/${String(single.id)}`)).title).toBe('Single');

    const series = await tuesdays('Refusals', 2);
    const [first] = await occurrences(series.id);
    const ruleThis = await write('PATCH', `/events/${String(first!.id)}`, { recurrence: { rrule: 'FREQ=DAILY;COUNT=2' } });
    expect(ruleThis.statusCode).toBe(400);
    expect(paramsOf(ruleThis.body)).toEqual(['recurrence']);
    const unknown = await write('PATCH', `/events/${String(first!.id)}?scope=everything`, { title: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(paramsOf(unknown.body)).toEqual(['scope']);
    // A representation sent back names the series as the parent: not a change.
    const back = await write('PUT', `/events/${String(first!.id)}`, { title: 'Sent back', post_parent: series.id });
    expect(back.statusCode, back.body).toBe(200);
  });
});
