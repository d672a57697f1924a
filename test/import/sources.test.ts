/**
 * Reading JSON Lines: lines are cut in the file's bytes, a megabyte at a time, and decoded one by
 * one, so a line must come out whole and right whatever falls on a chunk's edge — a multi-byte
 * character, a CR LF pair — and with CR LF endings, blank lines and no final line feed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSources, readSource } from '../../src/import/sources.js';

const CHUNK = 1 << 20;
let dir: string | null = null;

afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function records(content: Buffer): Promise<Array<{ line: number | undefined; record?: unknown; errors?: unknown }>> {
  dir = mkdtempSync(path.join(tmpdir(), 'seed-sources-'));
  const file = path.join(dir, 'events.jsonl');
  writeFileSync(file, content);
  const [source] = await discoverSources([file]);
  const out: Array<{ line: number | undefined; record?: unknown; errors?: unknown }> = [];
  for await (const item of readSource(source!))
    out.push('errors' in item ? { line: item.line, errors: item.errors } : { line: item.line, record: item.record });
  return out;
}

/** A line `{"title":"<filler><text>"}` whose `text` starts at byte `at` of the file, given what precedes it. */
function lineWithTextAt(before: number, at: number, text: string): string {
  const prefix = '{"title":"';
  return `${prefix}${'x'.repeat(at - before - prefix.length)}${text}"}`;
}

describe('seed sources: JSON Lines', () => {
  it('cuts multi-byte characters and CR LF pairs that straddle a chunk edge back together', async () => {
    const first = '{"title":"a"}\r\n';
    // A 4-byte character whose first byte is the last of the first chunk.
    const second = `${lineWithTextAt(first.length, CHUNK - 1, '😀 €')}\r\n`;
    const before = Buffer.byteLength(first + second);
    // A CR LF pair cut by the second chunk's edge: CR is its last byte.
    const third = lineWithTextAt(before, 2 * CHUNK - 1 - Buffer.byteLength('é"}'), 'é');
    const content = Buffer.from(`${first}${second}${third}\r\n\r\n   \n{"title":"last ü"}`, 'utf8');
    expect(content.subarray(CHUNK - 1, CHUNK + 3).toString('utf8')).toBe('😀');
    expect(content[2 * CHUNK - 1]).toBe(0x0d);
    expect(content[2 * CHUNK]).toBe(0x0a);

    const read = await records(content);
    expect(read.map((r) => r.line)).toEqual([1, 2, 3, 6]);
    expect(read.every((r) => r.errors === undefined)).toBe(true);
    const titles = read.map((r) => (r.record as { title: string }).title);
    expect(titles[0]).toBe('a');
    expect(titles[1]).toMatch(/^x+😀 €$/);
    expect(titles[2]).toMatch(/^x+é$/);
    expect(titles[3]).toBe('last ü');
  });

  it('reads a line longer than a chunk, and lines that end exactly at a chunk edge', async () => {
    const long = lineWithTextAt(0, 2 * CHUNK + 10, 'ü end');
    // The next line's line feed is the last byte of the third chunk; the one after starts the fourth.
    const edge = lineWithTextAt(Buffer.byteLength(long) + 1, 3 * CHUNK - 4, 'e');
    const content = Buffer.from(`${long}\n${edge}\n{"title":"after"}\n`, 'utf8');
    expect(content[3 * CHUNK - 1]).toBe(0x0a);
    const read = await records(content);
    expect(read.map((r) => r.line)).toEqual([1, 2, 3]);
    const titles = read.map((r) => (r.record as { title: string }).title);
    expect(titles[0]).toMatch(/^x+ü end$/);
    expect(titles[0]!.length).toBe(2 * CHUNK + 10 - '{"title":"'.length + 'ü end'.length);
    expect(titles[1]).toMatch(/^x+e$/);
    expect(titles[2]).toBe('after');
  });

  it('reports a line that is not JSON by its number, and reads on', async () => {
    const read = await records(Buffer.from('{"title":"one"}\n{"title": nope}\r\n\n{"title":"four"}\n', 'utf8'));
    expect(read.map((r) => r.line)).toEqual([1, 2, 4]);
    expect(read[1]!.errors).toEqual([expect.objectContaining({ field: '(line)' })]);
    expect((read[2]!.record as { title: string }).title).toBe('four');
  });
});

describe('seed sources: items', () => {
  /** Reads the files' items themselves (not copies), to look at how V8 stores them. */
  async function items(name: string, content: string): Promise<object[]> {
    dir = mkdtempSync(path.join(tmpdir(), 'seed-sources-'));
    const file = path.join(dir, name);
    writeFileSync(file, content);
    const [source] = await discoverSources([file]);
    const out: object[] = [];
    for await (const item of readSource(source!)) out.push(item);
    return out;
  }

  // V8 gave every item made as `{ ...position, record }` a hidden class of its own (a spread plus a
  // new key), so a load's every later read of an item missed its inline cache: 9% of a load's
  // instructions. The runtime function that compares hidden classes needs natives syntax, allowed
  // here for the functions compiled after it (the one below).
  setFlagsFromString('--allow-natives-syntax');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- natives syntax compiles only at run time
  const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

  it('share one hidden class from a JSON Lines file, whatever the records hold', async () => {
    const lines = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({ title: `t${i}`, ...(i % 3 === 0 ? { website: 'https://example.org' } : {}), ...(i % 7 === 0 ? { featured: true } : {}) }),
    );
    const read = await items('events.jsonl', `${lines.join('\n')}\n`);
    expect(read).toHaveLength(60);
    expect(read.filter((item) => !sameMap(item, read[0]!))).toEqual([]);
  });

  it('share one hidden class from a CSV file', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `t${i},2027-01-0${1 + (i % 9)} 10:00,2027-01-0${1 + (i % 9)} 11:00,${i % 2 === 0 ? 'yes' : ''}`);
    const read = await items('events.csv', `title,start_date,end_date,featured\n${rows.join('\n')}\n`);
    expect(read).toHaveLength(60);
    expect(read.every((item) => 'record' in item)).toBe(true);
    expect(read.filter((item) => !sameMap(item, read[0]!))).toEqual([]);
  });
});
