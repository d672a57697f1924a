/**
 * Content lines folded as RFC 5545 §3.1 asks: no line longer than 75 octets (CRLF excluded); a
 * longer one continues on lines that begin with one space, cut between characters, never inside a
 * UTF-8 sequence or a surrogate pair. ical-generator folds its output too, but encodes every
 * character on its own to count its octets: a feed of a thousand events then spends seconds
 * there. This counts them from the UTF-16 code units.
 */

const LIMIT = 75;

/** Octets of the UTF-8 encoding of the character at `text[i]`, and how many code units it spans. */
function characterAt(text: string, i: number): [octets: number, units: number] {
  const code = text.charCodeAt(i);
  if (code < 0x80) return [1, 1];
  if (code < 0x800) return [2, 1];
  const next = text.charCodeAt(i + 1);
  if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return [4, 2];
  return [3, 1];
}

function foldLine(line: string, out: string[]): void {
  // Most lines are short ASCII: at most 75 code units and no more octets than units.
  if (line.length <= LIMIT && Buffer.byteLength(line) <= LIMIT) {
    out.push(line);
    return;
  }
  let start = 0;
  let octets = 0;
  // The first line holds 75 octets; a continuation's leading space takes one of its 75.
  let room = LIMIT;
  for (let i = 0; i < line.length;) {
    const [size, units] = characterAt(line, i);
    if (octets + size > room) {
      out.push(start === 0 ? line.slice(0, i) : ` ${line.slice(start, i)}`);
      start = i;
      octets = 0;
      room = LIMIT - 1;
    }
    octets += size;
    i += units;
  }
  out.push(start === 0 ? line : ` ${line.slice(start)}`);
}

/** Text of CRLF-ended content lines, each folded to at most 75 octets. */
export function foldContentLines(text: string): string {
  const lines = text.split('\r\n');
  // The text ends with CRLF: the last element is empty and ends nothing.
  if (lines.at(-1) === '') lines.pop();
  const out: string[] = [];
  for (const line of lines) foldLine(line, out);
  return out.length === 0 ? '' : `${out.join('\r\n')}\r\n`;
}
