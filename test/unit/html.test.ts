/**
 * autoParagraph (the reference's wpautop rendering of description/excerpt) and escapeHtml.
 */
import { describe, expect, it } from 'vitest';
import { autoParagraph, escapeHtml } from '../../src/lib/html.js';

describe('autoParagraph', () => {
  it.each([
    { input: '', output: '' },
    { input: '   \n\n  ', output: '' },
    { input: 'Short excerpt', output: '<p>Short excerpt</p>' },
    { input: '  padded  ', output: '<p>padded</p>' },
    { input: 'form-encoded excerpt', output: '<p>form-encoded excerpt</p>' },
    { input: 'One\n\nTwo', output: '<p>One</p>\n<p>Two</p>' },
    { input: 'One\n\n\n\nTwo', output: '<p>One</p>\n<p>Two</p>' },
    { input: 'One\n  \nTwo', output: '<p>One</p>\n<p>Two</p>' },
    { input: 'Line one\nLine two', output: '<p>Line one<br />\nLine two</p>' },
    { input: 'Windows\r\n\r\nlines\rold mac', output: '<p>Windows</p>\n<p>lines<br />\nold mac</p>' },
    { input: '<p>Event created by the peer sample script.</p>', output: '<p>Event created by the peer sample script.</p>' },
    { input: '<div>Block</div>\n\nText', output: '<div>Block</div>\n<p>Text</p>' },
    { input: '<ul><li>a</li></ul>', output: '<ul><li>a</li></ul>' },
    { input: '<h2>Title</h2>', output: '<h2>Title</h2>' },
    { input: '<strong>Bold</strong> start', output: '<p><strong>Bold</strong> start</p>' },
    { input: '<pre>code</pre>', output: '<pre>code</pre>' },
    { input: '<progress>inline-ish</progress>', output: '<p><progress>inline-ish</progress></p>' },
  ])('renders $input as $output', ({ input, output }) => {
    expect(autoParagraph(input)).toBe(output);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML-special characters and nothing else', () => {
    expect(escapeHtml(`<p class="x">Tom & Jerry's</p>`)).toBe('&lt;p class=&quot;x&quot;&gt;Tom &amp; Jerry&#039;s&lt;/p&gt;');
    expect(escapeHtml('café – 10€')).toBe('café – 10€');
  });
});
