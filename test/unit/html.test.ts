/**
 * autoParagraph (the reference's wpautop rendering of description/excerpt), escapeHtml, and the
 * plain text of stored HTML (htmlToText, decodeEntities).
 */
import { describe, expect, it } from 'vitest';
import { autoParagraph, decodeEntities, escapeHtml, htmlToText } from '../../src/lib/html.js';

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

describe('htmlToText', () => {
  it.each([
    { input: '', output: '' },
    { input: 'Plain text', output: 'Plain text' },
    { input: 'Line one\nLine two\r\n\r\nNext paragraph', output: 'Line one\nLine two\n\nNext paragraph' },
    { input: '<p>One</p><p>Two</p>', output: 'One\n\nTwo' },
    { input: '<P CLASS="x">Upper</P>case', output: 'Upper\n\ncase' },
    { input: 'a<br>b<br/>c<br />d', output: 'a\nb\nc\nd' },
    { input: '<h2>Title</h2>Body', output: 'Title\n\nBody' },
    { input: '<ul><li>one</li><li>two</li></ul>after', output: '- one\n- two\n\nafter' },
    { input: '<strong>Bold</strong> and <a href="https://x.example/?a=1&amp;b=2">link</a>', output: 'Bold and link' },
    {
      input: 'Fish &amp; chips &lt;b&gt; &quot;q&quot; &#233;t&#xE9; &hellip; &unknown; &#0; &#xD800;',
      output: 'Fish & chips <b> "q" été … &unknown; &#0; &#xD800;',
    },
    { input: 'a < b and c > d', output: 'a < b and c > d' },
    { input: '1 <2 and x<y', output: '1 <2 and x<y' },
    { input: 'before<script>alert("<p>x</p>")</script>after', output: 'beforeafter' },
    { input: '<style>p { color: red }</style>Styled', output: 'Styled' },
    { input: 'x<!-- a <p> comment -->y', output: 'xy' },
    { input: 'open <!-- never closed', output: 'open' },
    { input: 'tag <b never closed', output: 'tag <b never closed' },
    { input: '<script>unclosed', output: '' },
    { input: '  many    spaces\t and&nbsp;&nbsp;nbsp  ', output: 'many spaces and nbsp' },
    { input: '<p>a</p>\n\n\n<p>b</p>', output: 'a\n\nb' },
    { input: 'İstanbul <b>bold</b> İ', output: 'İstanbul bold İ' },
    { input: '<!DOCTYPE html><?xml version="1.0"?>text', output: 'text' },
  ])('reads $input as $output', ({ input, output }) => {
    expect(htmlToText(input)).toBe(output);
  });

  it('takes time in proportion to the text, whatever markup it holds', () => {
    for (const piece of ['<!--', '<script>', '<a', '&#', '<p>x']) {
      const text = piece.repeat(20_000);
      const started = performance.now();
      htmlToText(text);
      expect(performance.now() - started, piece).toBeLessThan(1000);
    }
  });
});

describe('decodeEntities', () => {
  it('leaves text without an ampersand as it is', () => {
    const text = 'no entities here';
    expect(decodeEntities(text)).toBe(text);
  });

  it('decodes astral code points', () => {
    expect(decodeEntities('&#x1F389; &#127881;')).toBe('🎉 🎉');
  });
});
