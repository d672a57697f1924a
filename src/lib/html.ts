/**
 * Rendering of stored content the way the reference's WordPress filters present it:
 * `description` and `excerpt` are stored as sent and returned as HTML paragraphs (wpautop).
 */

const BLOCK_START =
  /^<(?:p|div|h[1-6]|ul|ol|li|table|thead|tbody|tr|td|th|blockquote|pre|figure|section|article|header|footer|aside|nav|hr|dl|dt|dd|form|fieldset|address|details|summary|iframe|hr)\b/i;

/** A small wpautop: blank-line separated blocks become `<p>` paragraphs, single newlines `<br />`. */
export function autoParagraph(text: string): string {
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  if (trimmed === '') return '';
  return trimmed
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => (BLOCK_START.test(block) ? block : `<p>${block.replace(/\n/g, '<br />\n')}</p>`))
    .join('\n');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** Elements that end a paragraph in plain text (a blank line), and those that end a line. */
const PARAGRAPH_TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'ul', 'ol', 'dl', 'table', 'hr', 'figure', 'section', 'article']);
const LINE_TAGS = new Set(['br', 'div', 'tr', 'dt', 'dd', 'header', 'footer', 'aside', 'nav', 'address', 'details', 'summary', 'figcaption']);
/** Elements whose content is no text. */
const SKIPPED_CONTENT = new Set(['script', 'style', 'template']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  shy: '',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  deg: '°',
  times: '×',
};

/** `&amp;`, `&#233;`, `&#xE9;` and the common named entities decoded; anything else is left as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    // Surrogates and out-of-range code points are not characters; NUL is none either.
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
    return String.fromCodePoint(code);
  });
}

/** The lower-case name of the tag at `text[at]` (`<p`, `</p`), or '' when `<` starts no tag there. */
function tagNameAt(lower: string, at: number): string {
  let i = at + 1;
  if (lower[i] === '/') i += 1;
  const start = i;
  while (i < lower.length && /[a-z0-9]/.test(lower[i] as string)) i += 1;
  return /[a-z]/.test(lower[start] ?? '') ? lower.slice(start, i) : '';
}

/**
 * Stored description HTML as plain text, for formats without markup (iCalendar): tags removed
 * (paragraphs and headings become blank lines, line breaks and list items new lines), the content
 * of scripts and styles dropped, comments removed, entities decoded, spaces collapsed. Newlines of
 * the text itself are kept: descriptions are stored as sent and their newlines are line breaks
 * (see autoParagraph). One pass over the text, whatever it holds (an unclosed tag or comment ends
 * the text).
 */
export function htmlToText(html: string): string {
  const text = html.replace(/\r\n?/g, '\n');
  // ASCII letters only: the copy must keep every index of the text (`İ` lower-cases to two units).
  const lower = text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  let out = '';
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('<', at);
    if (open < 0) {
      out += text.slice(at);
      break;
    }
    out += text.slice(at, open);
    if (lower.startsWith('<!--', open)) {
      const close = lower.indexOf('-->', open + 4);
      at = close < 0 ? text.length : close + 3;
      continue;
    }
    const name = tagNameAt(lower, open);
    const isMarkup = name !== '' || lower[open + 1] === '!' || lower[open + 1] === '?';
    const end = isMarkup ? text.indexOf('>', open) : -1;
    if (end < 0) {
      // Not a tag (`a < b`), or one never closed: the `<` is text.
      out += '<';
      at = open + 1;
      continue;
    }
    at = end + 1;
    const closing = lower[open + 1] === '/';
    if (!closing && SKIPPED_CONTENT.has(name)) {
      const close = lower.indexOf(`</${name}`, at);
      at = close < 0 ? text.length : close;
      continue;
    }
    if (PARAGRAPH_TAGS.has(name)) out += '\n\n';
    else if (name === 'li') out += closing ? '' : '\n- ';
    else if (LINE_TAGS.has(name)) out += '\n';
  }
  return decodeEntities(out)
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
