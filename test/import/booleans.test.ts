/**
 * Boolean fields of seed records: a value that is not one of the accepted forms is reported as
 * `<field> must be true or false (got <value>)` with the accepted forms listed, on the record named
 * by its slug (or by the slug its title makes) and its position; the accepted forms keep loading,
 * from JSON and from CSV.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/import/report.js';
import { SEED_SCHEMAS } from '../../src/import/schemas.js';
import { type Storage } from '../../src/storage/port.js';
import { openStorage, seed, seedDir } from './fixtures.js';

const BOOLEAN_FIELDS = ['all_day', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'ticketed'];
const ACCEPTED = 'also accepted: 1 and 0, and as text "true" and "false" (in any case), "1" and "0".';
const expected = (field: string, got: string) => `${field} must be true or false (got ${got}); ${ACCEPTED}`;

const event = (fields: Record<string, unknown>) => ({ title: 'Concert', start_date: '2030-01-01 19:00', end_date: '2030-01-01 21:00', ...fields });

let storage: Storage;
let dir: ReturnType<typeof seedDir>;
beforeEach(async () => {
  storage = await openStorage();
  dir = seedDir();
});
afterEach(async () => {
  dir.remove();
  await storage.close();
});

describe('seed booleans', () => {
  it('are the event fields that take true or false', () => {
    const properties = (SEED_SCHEMAS.events as unknown as { properties: Record<string, { title?: string }> }).properties;
    expect(
      Object.keys(properties)
        .filter((name) => properties[name]!.title === 'boolean')
        .sort(),
    ).toEqual([...BOOLEAN_FIELDS].sort());
  });

  it.each(BOOLEAN_FIELDS)('%s: a value out of the accepted forms names them, the value and the record (JSON)', async (field) => {
    dir.write('events.json', [event({ slug: 'gala', [field]: 'yes' }), event({ title: 'Harbour Night', [field]: 2 })]);
    const { report, problems } = await seed(storage, [dir.dir], { dryRun: true });
    expect(report.outcome).toBe('invalid');
    expect(problems.map((p) => [p.location.split('/').pop(), p.slug, p.field, p.message])).toEqual([
      ['events.json[0]', 'gala', field, expected(field, '"yes"')],
      ['events.json[1]', 'harbour-night', field, expected(field, '2')],
    ]);
  });

  it('quotes every kind of wrong value as JSON, and prints the line with the slug', async () => {
    dir.write('events.json', [event({ slug: 'a', featured: null, sticky: [], ticketed: 'on', all_day: -1 })]);
    const { problems } = await seed(storage, [dir.dir], { dryRun: true });
    expect(Object.fromEntries(problems.map((p) => [p.field, p.message]))).toEqual({
      featured: expected('featured', 'null'),
      sticky: expected('sticky', '[]'),
      ticketed: expected('ticketed', '"on"'),
      all_day: expected('all_day', '-1'),
    });
    const line = formatProblem(problems.find((p) => p.field === 'ticketed')!);
    expect(line).toMatch(/^invalid: .*events\.json\[0\] \(a\) ticketed: ticketed must be true or false \(got "on"\); also accepted: /);
  });

  it('names a record without slug or title by its position only', async () => {
    dir.write('events.json', [{ start_date: '2030-01-01 19:00', end_date: '2030-01-01 21:00', title: 7, featured: 'no' }]);
    const { problems } = await seed(storage, [dir.dir], { dryRun: true });
    expect(problems.find((p) => p.field === 'featured')).toMatchObject({ message: expected('featured', '"no"') });
    expect(problems.every((p) => p.slug === undefined && p.location.endsWith('events.json[0]'))).toBe(true);
  });

  it('reports a CSV cell with its line and the slug', async () => {
    dir.write(
      'events.csv',
      [
        'slug,title,start_date,end_date,featured,all_day',
        'gala,Gala,2030-01-01 19:00,2030-01-01 21:00,yes,1',
        ',Harbour Night,2030-01-02 19:00,2030-01-02 21:00,0,nope',
      ].join('\n'),
    );
    const { problems } = await seed(storage, [dir.dir], { dryRun: true });
    expect(problems.map((p) => [p.location.split('/').pop(), p.slug, p.field, p.message])).toEqual([
      ['events.csv:2', 'gala', 'featured', expected('featured', '"yes"')],
      ['events.csv:3', 'harbour-night', 'all_day', expected('all_day', '"nope"')],
    ]);
  });

  it('loads every accepted form, from JSON and from CSV', async () => {
    const json = [true, false, 1, 0, 'true', 'FALSE', 'True', '1', '0'];
    dir.write(
      'events.json',
      json.map((value, i) => event({ slug: `json-${i}`, featured: value, sticky: value, ticketed: value })),
    );
    const csv = ['true', 'false', 'TRUE', 'False', '1', '0'];
    dir.write(
      'events.csv',
      [
        'slug,title,start_date,end_date,featured,all_day,hide_from_listings',
        ...csv.map((v, i) => `csv-${i},Concert,2030-01-01 19:00,2030-01-01 21:00,${v},${v},${v}`),
      ].join('\n'),
    );
    const { report, problems } = await seed(storage, [dir.dir]);
    expect(problems).toEqual([]);
    expect(report.counts.events.created).toBe(json.length + csv.length);
    const featured = async (slug: string) => (await storage.events.findOne({ slug }))?.featured;
    expect(await Promise.all(json.map((_, i) => featured(`json-${i}`)))).toEqual([true, false, true, false, true, false, true, true, false]);
    expect(await Promise.all(csv.map((_, i) => featured(`csv-${i}`)))).toEqual([true, false, true, false, true, false]);
  });
});
