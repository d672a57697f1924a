/**
 * The start-up summary (src/startup-summary.ts): for every storage mode, token setup and listening
 * address, the lines say where the server is, where its data lives and every risky mode in words.
 */
import { describe, expect, it } from 'vitest';
import { type StartupFacts, startupSummary } from '../../src/startup-summary.js';

const EDITOR = { editor: 1, viewer: 0 };

function summary(overrides: Partial<StartupFacts>): string[] {
  return startupSummary({
    host: '127.0.0.1',
    port: 3000,
    storage: { kind: 'durable', dataDir: '/srv/calendar/data' },
    tokens: EDITOR,
    seeded: null,
    ...overrides,
  });
}

describe('startupSummary', () => {
  it('names the URL, the API docs and a durable data directory, and nothing risky when writes are possible', () => {
    expect(summary({})).toEqual([
      'calendar-service listening on http://127.0.0.1:3000',
      'API docs: http://127.0.0.1:3000/docs/',
      'storage: embedded, data in /srv/calendar/data (durable)',
    ]);
  });

  it('says that an embedded store without DATA_DIR loses its data on exit', () => {
    expect(summary({ storage: { kind: 'in-memory' } })).toContain('storage: embedded, in memory: data is lost when the process exits (DATA_DIR is not set)');
  });

  it('names the MongoDB hosts and database, and no more of the URI', () => {
    expect(summary({ storage: { kind: 'mongodb', hosts: 'db1.example:27017, db2.example:27018', database: 'calendar' } })).toContain(
      'storage: MongoDB at db1.example:27017, db2.example:27018 (database calendar)',
    );
    // A URI whose hosts cannot be told apart safely from its credentials: the database only.
    expect(summary({ storage: { kind: 'mongodb', hosts: null, database: 'prod' } })).toContain('storage: MongoDB (database prod)');
  });

  it('says that an in-memory MongoDB server loses its data on exit', () => {
    expect(summary({ storage: { kind: 'memory-server', database: 'calendar' } })).toContain(
      'storage: MongoDB in-memory server (database calendar): data is lost when the process exits',
    );
  });

  it('says read-only without tokens, and without an editor token', () => {
    expect(summary({ tokens: { editor: 0, viewer: 0 } })).toContain('read-only: no API_TOKENS set, writes answer 401');
    expect(summary({ tokens: { editor: 0, viewer: 2 } })).toContain('read-only: API_TOKENS has no editor token, writes answer 401 (403 with a viewer token)');
    expect(summary({ tokens: { editor: 1, viewer: 2 } }).join('\n')).not.toContain('read-only');
  });

  it('reports what start-up seeding loaded, when it ran', () => {
    expect(
      summary({
        seeded: [
          ['categories', 3],
          ['events', 12],
        ],
      }),
    ).toContain('seed: the store was empty, loaded 3 categories, 12 events');
    expect(summary({ seeded: null }).join('\n')).not.toContain('seed');
  });

  it.each([
    ['0.0.0.0', 'calendar-service listening on all interfaces (HOST=0.0.0.0) at port 8080: http://localhost:8080', 'http://localhost:8080/docs/'],
    ['::', 'calendar-service listening on all interfaces (HOST=::) at port 8080: http://localhost:8080', 'http://localhost:8080/docs/'],
    ['::1', 'calendar-service listening on http://[::1]:8080', 'http://[::1]:8080/docs/'],
    ['calendar.internal', 'calendar-service listening on http://calendar.internal:8080', 'http://calendar.internal:8080/docs/'],
  ])('HOST=%s gives a URL a browser can open', (host, listening, docs) => {
    const [first, second] = summary({ host, port: 8080 });
    expect(first).toBe(listening);
    expect(second).toBe(`API docs: ${docs}`);
  });

  it('stays a short block in the riskiest setup', () => {
    const lines = summary({ host: '0.0.0.0', storage: { kind: 'in-memory' }, tokens: { editor: 0, viewer: 0 }, seeded: [['events', 341]] });
    expect(lines.length).toBeLessThanOrEqual(8);
  });
});
