/**
 * What the embedded engine's start-up loads (`npm start`, `npm run seed`): neither the MongoDB
 * driver nor mingo, which only a MongoDB engine or a dotted-path condition needs (~0.35 s of module
 * loading between them). Checked in a child process, since this one has loaded both for other tests.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `body` (an ES module's text) in a fresh `node --import tsx`; `loaded()` in it notes the
 * packages loaded so far. Returns each note, in order.
 */
function packagesLoadedAt(body: string): string[][] {
  const script = `
    import { createRequire } from 'node:module';
    const notes = [];
    const loaded = () => notes.push([...new Set(Object.keys(createRequire(import.meta.url).cache)
      .map((key) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(key)?.[1])
      .filter((name) => name !== undefined))]);
    ${body}
    process.stdout.write(JSON.stringify(notes));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: '' },
  });
  // The exit status decides; stderr (a failed step's stack) explains a failure. A warning Node
  // prints to stderr is no failure of what is checked here.
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as string[][];
}

const EMBEDDED_START = `
  const { loadConfig } = await import('./src/config.ts');
  const { createStorage } = await import('./src/storage/create-storage.ts');
  await import('./src/cli/seed.ts');
  const { buildApp } = await import('./src/app.ts');
  const config = loadConfig({ STORAGE: 'embedded' });
  const storage = await createStorage(config, { info() {}, warn() {} });
  await storage.ensureIndexes();
  const app = buildApp({ config, storage, logger: false });
  await app.ready();
  const events = await app.inject({ url: '/calendar/events/v1/events?search=jazz&featured=true' });
  if (events.statusCode !== 200) throw new Error('event list answered ' + events.statusCode);
`;

// One process for both checks: a cold start of the app is most of what each would cost.
describe('start-up on the embedded engine', () => {
  const [serving, later] = (() => {
    let notes: string[][] | undefined;
    const read = () =>
      (notes ??= packagesLoadedAt(`
      ${EMBEDDED_START}
      loaded();
      const venues = await storage.venues.find({ filter: { 'location.type': 'Point' } });
      if (!Array.isArray(venues)) throw new Error('no venue list');
      await import('./src/storage/mongodb/index.ts');
      loaded();
      await app.close(); await storage.close();
    `));
    return [() => read()[0]!, () => read()[1]!];
  })();

  it('serves the API without loading the MongoDB driver or mingo', { timeout: 60_000 }, () => {
    const loaded = serving();
    // The check sees CommonJS packages loaded through import: fastify is one.
    expect(loaded).toContain('fastify');
    expect(loaded).not.toContain('mongodb');
    expect(loaded).not.toContain('mingo');
  });

  it('loads mingo for a dotted-path condition, and the driver for a MongoDB engine', { timeout: 60_000 }, () => {
    const loaded = later();
    expect(loaded).toContain('mingo');
    expect(loaded).toContain('mongodb');
  });
});
