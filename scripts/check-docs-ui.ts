/**
 * Browser check of the API reference UI: starts the app on a free port (embedded
 * engine, seed data), drives a real headless Chromium through playwright-core and checks, under
 * every root, that the page loads from this server alone, lists the event routes under the root's
 * own tag name, shows a lock on writes only, and that a "Try it out" of GET /events answers 200.
 * Exits non-zero on any failure.
 *
 *   npm run check:docs-ui                            # needs /usr/bin/chromium (Debian: apt-get install chromium)
 *   npm run check:docs-ui -- --chromium=/path/to/chrome
 *
 * Never downloads a browser; not part of `npm test`.
 */
import { existsSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { chromium, type Page } from 'playwright-core';
import { indexes } from '../indexes/index.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { tagName } from '../src/docs/openapi.js';
import { MESSAGES, languageOfRoot } from '../src/i18n/index.js';
import { seedIfEmpty } from '../src/import/seed-on-start.js';
import { ROOTS } from '../src/routes/roots.js';
import { createEmbeddedStorage } from '../src/storage/embedded/index.js';

const executablePath = process.argv.find((a) => a.startsWith('--chromium='))?.slice('--chromium='.length) ?? '/usr/bin/chromium';
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TIMEOUT_MS = 30_000;
const NS = 'calendar/events/v1';

interface RootResult {
  root: string;
  ok: boolean;
  notes: string[];
}

async function checkRoot(page: Page, origin: string, root: string): Promise<RootResult> {
  const notes: string[] = [];
  const fail = (message: string): RootResult => ({ root, ok: false, notes: [...notes, `FAIL ${message}`] });
  const foreign: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });

  const url = `${origin}${root}/docs/`;
  const response = await page.goto(url, { waitUntil: 'networkidle', timeout: TIMEOUT_MS });
  if (response?.status() !== 200) return fail(`${url} answered ${response?.status()}`);
  notes.push(`loaded ${url} (title "${await page.title()}")`);

  // The event routes are listed under the root's own tag name, with the root's own summaries.
  // Swagger UI's anchors are `operations-tag-<tag>` and `operations-<tag>-<operationId>`.
  const eventsTag = tagName(languageOfRoot(root), 'events');
  await page.waitForSelector(`[id="operations-tag-${eventsTag}"]`, { timeout: TIMEOUT_MS });
  const paths = await page.$$eval('#swagger-ui .opblock-summary-path', (nodes) => nodes.map((n) => n.getAttribute('data-path') ?? n.textContent ?? ''));
  const methods = await page.$$eval('#swagger-ui .opblock', (nodes) => nodes.map((n) => n.querySelector('.opblock-summary-method')?.textContent ?? ''));
  for (const expected of ['/events', '/events/{id}', '/events/by-slug/{slug}', '/venues', '/organizers', '/categories', '/tags']) {
    if (!paths.includes(expected)) return fail(`route ${expected} not listed (listed: ${[...new Set(paths)].join(' ')})`);
  }
  notes.push(`lists ${paths.length} operations on ${new Set(paths).size} paths (${[...new Set(methods)].join(', ')})`);
  const summary = MESSAGES[languageOfRoot(root)]['operation.events.list'] ?? '';
  const listOperation = page.locator(`[id="operations-${eventsTag}-listEvents"]`);
  if (!(await listOperation.innerText()).includes(summary)) return fail(`GET /events is not summarised as "${summary}"`);
  // A lock on the operations that need a token (writes), none on reads.
  const locked = await page.$$eval('#swagger-ui .opblock', (nodes) =>
    nodes.filter((n) => n.querySelector('.authorization__btn') !== null).map((n) => n.querySelector('.opblock-summary-method')?.textContent ?? ''),
  );
  const lockedReads = locked.filter((method) => method === 'GET');
  if (lockedReads.length > 0 || locked.length === 0) return fail(`locks on ${locked.length} operations, ${lockedReads.length} of them reads`);
  notes.push(`a lock on ${locked.length} write operations, none on reads`);

  // "Try it out" of GET /events, without parameters.
  await listOperation.locator('.opblock-summary').first().click();
  await listOperation.locator('button.try-out__btn').click();
  const answer = page.waitForResponse((r) => r.url().startsWith(`${origin}${root}/${NS}/events`) && r.request().method() === 'GET', { timeout: TIMEOUT_MS });
  await listOperation.locator('button.execute').click();
  const apiResponse = await answer;
  await listOperation.locator('.live-responses-table tbody .response-col_status').first().waitFor({ timeout: TIMEOUT_MS });
  const shownStatus = (await listOperation.locator('.live-responses-table tbody .response-col_status').first().innerText()).trim();
  const requestUrl = (await listOperation.locator('.request-url pre').first().innerText()).trim();
  const body = (await apiResponse.json()) as { events?: unknown[]; total?: number };
  if (apiResponse.status() !== 200 || shownStatus !== '200') return fail(`try-it GET /events: HTTP ${apiResponse.status()}, shown ${shownStatus}`);
  if (!requestUrl.startsWith(`${origin}${root}/${NS}/events`)) return fail(`try-it called ${requestUrl}, not this server and root`);
  notes.push(`try-it GET ${requestUrl} → ${shownStatus} (${body.events?.length ?? 0} of ${body.total ?? 0} events)`);

  if (foreign.length > 0) return fail(`requests to other origins: ${foreign.join(', ')}`);
  notes.push('no request left the server (offline)');
  if (consoleErrors.length > 0) notes.push(`console errors: ${consoleErrors.join(' | ')}`);
  return { root, ok: consoleErrors.length === 0, notes };
}

async function main(): Promise<number> {
  if (!existsSync(executablePath)) {
    process.stderr.write(`Chromium not found at ${executablePath} (install it, e.g. apt-get install chromium, or pass --chromium=PATH).\n`);
    return 2;
  }
  const config = loadConfig({ RATE_LIMIT_READS: '0', RATE_LIMIT_WRITES: '0', LOG_LEVEL: 'silent' });
  const storage = createEmbeddedStorage({ indexes, reason: 'check-docs-ui' });
  await storage.ensureIndexes();
  await seedIfEmpty({ storage, config: { ...config, seedOnStart: true }, log: { info: () => undefined } });
  const app = buildApp({ config, storage, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  process.stdout.write(`server: ${origin}; browser: ${executablePath}\n`);

  const browser = await chromium.launch({ executablePath, headless: true, args: LAUNCH_ARGS, timeout: TIMEOUT_MS });
  let failed = 0;
  try {
    process.stdout.write(`browser version: ${browser.version()}\n`);
    for (const root of ROOTS) {
      const context = await browser.newContext();
      const page = await context.newPage();
      let result: RootResult;
      try {
        result = await checkRoot(page, origin, root);
      } catch (error) {
        result = { root, ok: false, notes: [`FAIL ${error instanceof Error ? error.message : String(error)}`] };
      }
      await context.close();
      if (!result.ok) failed += 1;
      process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} root "${root}"\n${result.notes.map((n) => `     ${n}\n`).join('')}`);
    }
  } finally {
    await browser.close();
    await app.close();
    await storage.close();
  }
  process.stdout.write(failed === 0 ? 'docs UI check passed\n' : `docs UI check failed under ${failed} root(s)\n`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`docs UI check failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
