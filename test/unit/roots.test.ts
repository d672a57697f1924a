/**
 * The language roots of a URL (src/routes/roots.ts): which root a URL came in on, and the URL the
 * router is given: the root taken off the namespace's and the home page's URLs, any other URL as
 * sent.
 */
import { describe, expect, it } from 'vitest';
import { rootOfUrl, routedUrl } from '../../src/routes/roots.js';

const NS = 'calendar/events/v1';

describe('language roots of request URLs', () => {
  it.each([
    ['/', ''],
    [`/${NS}/events`, ''],
    [`/en/${NS}/events`, '/en'],
    [`/de/${NS}/events/1?x=1`, '/de'],
    ['/fr', '/fr'],
    ['/fr?x', '/fr'],
    ['/de#x', '/de'],
    ['/de/docs/', '/de'],
    ['/de/health/ready', '/de'],
    // The router decodes the path before matching: `/%64e/` is routed as `/de/`.
    [`/%64e/${NS}`, '/de'],
    [`/DE/${NS}`, ''],
    [`/deutsch/${NS}`, ''],
    ['/de;x', ''],
    ['/es', ''],
    ['/%ff/x', ''],
    ['*', ''],
  ])('%s is under root "%s"', (url, root) => {
    expect(rootOfUrl(url)).toBe(root);
  });

  it.each([
    // The namespace, under every root.
    [`/${NS}/events?page=2`, `/${NS}/events?page=2`],
    [`/en/${NS}`, `/${NS}`],
    [`/de/${NS}/`, `/${NS}/`],
    [`/de/${NS}?context=help`, `/${NS}?context=help`],
    [`/fr/${NS}/events/by-slug/a%2Fb`, `/${NS}/events/by-slug/a%2Fb`],
    [`/de/%63alendar/events/v1/tags`, '/%63alendar/events/v1/tags'],
    [`/%64e/${NS}/tags`, `/${NS}/tags`],
    // The home page of each root.
    ['/de', '/'],
    ['/de/', '/'],
    ['/de?x=1', '/?x=1'],
    ['/de/?x=1', '/?x=1'],
    ['/en#top', '/#top'],
    // Routed as sent: no root, the reference UI (mounted under each root), what no root serves.
    ['/health/ready', '/health/ready'],
    ['/de/docs/', '/de/docs/'],
    ['/de/health/ready', '/de/health/ready'],
    [`/de/de/${NS}`, `/de/de/${NS}`],
    [`/DE/${NS}`, `/DE/${NS}`],
    [`/de/${NS}x`, `/de/${NS}x`],
    ['/de/calendar/events', '/de/calendar/events'],
    ['/de/calendar%2Fevents/v1', '/de/calendar%2Fevents/v1'],
    ['/de//', '/de//'],
    ['/es/', '/es/'],
  ])('%s is routed as %s', (url, routed) => {
    expect(routedUrl(url)).toBe(routed);
  });

  it.each([
    ['/wp-json/tribe/events/v1', `/${NS}`],
    ['/wp-json/tribe/events/v1/', `/${NS}/`],
    ['/wp-json/tribe/events/v1/events?page=2', `/${NS}/events?page=2`],
    ['/wp-json/tribe/events/v1?context=help', `/${NS}?context=help`],
    ['/wp-json/tribe/events/v1/events/by-slug/a%2Fb', `/${NS}/events/by-slug/a%2Fb`],
    ['/wp-json/%74ribe/events/v1/tags', `/${NS}/tags`],
    // Not the drop-in path: routed as sent (a 404).
    ['/wp-json/tribe/events/v2/events', '/wp-json/tribe/events/v2/events'],
    ['/wp-json/tribe/events/v1x', '/wp-json/tribe/events/v1x'],
    ['/wp-json/tribe/events', '/wp-json/tribe/events'],
    ['/de/wp-json/tribe/events/v1', '/de/wp-json/tribe/events/v1'],
  ])('with the drop-in path on, %s is routed as %s', (url, routed) => {
    expect(routedUrl(url, true)).toBe(routed);
    expect(routedUrl(url, false)).toBe(url.startsWith('/wp-json/') ? url : routedUrl(url));
  });
});
