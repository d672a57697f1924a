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
