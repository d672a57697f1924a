/**
 * Seed files: which resource and format each holds, and reading their records.
 *
 * - The resource comes from the file name: `categories*`, `tags*`, `venues*`, `organizers*`,
 *   `events*` (e.g. `events.json`, `events-2026.jsonl`, `events_export.csv`).
 * - The format from the extension: `.json` (an array of records, read whole), `.jsonl`/`.ndjson`
 *   (one record a line, streamed), `.csv` (events only, streamed; see csv.ts).
 * - A directory stands for the seed files directly inside it, in name order; other files in it
 *   (README.md, …) are ignored.
 *
 * Records come out one by one with their position (index from 0 in the file's order, and the line
 * for line-based formats), so memory does not grow with the size of a streamed file.
 */
import { createReadStream, existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { slugFrom } from '../lib/slug.js';
import { checkCsvHeader, csvRowToRecord, type CsvHeader } from './csv.js';
import { type FieldError, RESOURCES, type Resource } from './schemas.js';

export type SourceFormat = 'json' | 'jsonl' | 'csv';

export interface SeedSource {
  path: string;
  /** The path as shown in messages (relative to the working directory when inside it). */
  display: string;
  resource: Resource;
  format: SourceFormat;
  /** Size and modification time when discovered: a streamed file must not change between the passes. */
  size: number;
  mtimeMs: number;
}

export interface RecordPosition {
  source: SeedSource;
  /** Position of the record in the file, from 0. */
  index: number;
  /** Line (from 1) for JSON Lines and CSV. */
  line?: number;
}

/** A record read from a file, or what made it unreadable. */
export type SourceItem = (RecordPosition & { record: unknown }) | (RecordPosition & { errors: FieldError[] });

export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/**
 * A path argument that names no seed file: missing, a directory without seed files, or a file whose
 * name does not say what it holds. Nothing has been read then, so it is a bad argument, not a bad file.
 */
export class PathError extends SourceError {
  constructor(message: string) {
    super(message);
    this.name = 'PathError';
  }
}

/** The seeds/ directory of this package, from src/import (tsx) or dist/src/import (built). */
export function defaultSeedsDir(): string {
  for (const relative of ['../../seeds/', '../../../seeds/']) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  return fileURLToPath(new URL('../../seeds/', import.meta.url));
}

const EXTENSIONS: Record<string, SourceFormat> = { '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.csv': 'csv' };

export function formatOf(file: string): SourceFormat | null {
  return EXTENSIONS[path.extname(file).toLowerCase()] ?? null;
}

export function resourceOf(file: string): Resource | null {
  const base = path.basename(file).toLowerCase();
  return RESOURCES.find((r) => base === r || (base.startsWith(r) && /^[._-]/.test(base.slice(r.length)))) ?? null;
}

function display(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

async function describe(file: string): Promise<SeedSource> {
  const format = formatOf(file);
  const resource = resourceOf(file);
  if (format === null) throw new SourceError(`${display(file)}: unknown format (use .json, .jsonl, .ndjson or .csv)`);
  if (resource === null) {
    throw new SourceError(`${display(file)}: cannot tell what it holds; name it after its resource (${RESOURCES.map((r) => `${r}*`).join(', ')})`);
  }
  if (format === 'csv' && resource !== 'events') throw new SourceError(`${display(file)}: CSV is read for events only`);
  const info = await stat(file);
  return { path: file, display: display(file), resource, format, size: info.size, mtimeMs: info.mtimeMs };
}

/** The seed files named by the arguments (files or directories), each once. */
export async function discoverSources(args: readonly string[]): Promise<SeedSource[]> {
  const sources: SeedSource[] = [];
  const seen = new Set<string>();
  for (const arg of args) {
    const full = path.resolve(arg);
    let info;
    try {
      info = await stat(full);
    } catch {
      throw new PathError(`${arg}: no such file or directory`);
    }
    const files = info.isDirectory()
      ? (await readdir(full, { withFileTypes: true }))
          .filter((entry) => entry.isFile() && formatOf(entry.name) !== null && !entry.name.startsWith('.'))
          .map((entry) => path.join(full, entry.name))
          .sort()
      : [full];
    if (info.isDirectory() && files.length === 0) throw new PathError(`${arg}: no seed files in this directory`);
    for (const file of files) {
      if (seen.has(file)) continue;
      seen.add(file);
      try {
        sources.push(await describe(file));
      } catch (error) {
        // A file named by the argument itself is a bad argument; one found in a directory is a bad file.
        if (error instanceof SourceError && !info.isDirectory()) throw new PathError(error.message);
        throw error;
      }
    }
  }
  return sources;
}

/** Whether a file still is what was validated (size and modification time). */
export async function unchangedSince(source: SeedSource): Promise<boolean> {
  const info = await stat(source.path);
  return info.size === source.size && info.mtimeMs === source.mtimeMs;
}

/** The records of a `.json` file (an array), read whole. */
export async function readJsonArray(source: SeedSource): Promise<unknown[]> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(source.path, 'utf8'));
  } catch (error) {
    throw new SourceError(`${source.display}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!Array.isArray(data)) throw new SourceError(`${source.display}: a seed file must hold a JSON array of records`);
  return data as unknown[];
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The lines of a UTF-8 file, read in large chunks (faster than node:readline for big files), a
 * chunk's worth at a time: a step of an async generator costs promises and a microtask turn, which
 * a line each would pay a million times. Lines are cut in the bytes (a line feed never occurs inside
 * a multi-byte character) and decoded one by one: a chunk decoded whole becomes a two-byte string as
 * soon as one of its characters is past Latin-1 (a `€` in a price), and every line sliced from it
 * parses slower (~0.1 s of a 100,000-event file).
 */
async function* lineChunks(file: string): AsyncGenerator<string[]> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  /** The start of a line that the chunks read so far have not finished (bytes). */
  let rest: Buffer | null = null;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const lines: string[] = [];
    let start = 0;
    let end = chunk.indexOf(LINE_FEED);
    if (rest !== null) {
      // Only the line across the edge is joined (a copy of a line, not of the whole chunk).
      if (end === -1) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      lines.push(lineText(Buffer.concat([rest, chunk.subarray(0, end)]), 0, end + rest.length));
      rest = null;
      start = end + 1;
      end = chunk.indexOf(LINE_FEED, start);
    }
    for (; end !== -1; end = chunk.indexOf(LINE_FEED, start)) {
      lines.push(lineText(chunk, start, end));
      start = end + 1;
    }
    if (start < chunk.length) rest = chunk.subarray(start);
    if (lines.length > 0) yield lines;
  }
  if (rest !== null) yield [rest.toString('utf8')];
}

/** The text of the line in `bytes[start, end)` (end: its line feed), without a CR before the line feed. */
function lineText(bytes: Buffer, start: number, end: number): string {
  return bytes.toString('utf8', start, end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
}

async function* jsonLines(source: SeedSource): AsyncGenerator<SourceItem[]> {
  let line = 0;
  let index = 0;
  for await (const texts of lineChunks(source.path)) {
    const items: SourceItem[] = [];
    for (const text of texts) {
      line++;
      if (text.trim() === '') continue;
      // Items are written out as literals: `{ ...position, record }` gives every object a hidden class
      // of its own (V8 does not share the map a spread plus a new key makes), so each later read of
      // an item missed its inline cache, and 100,000 kept items held 100,000 maps.
      const at = index++;
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (error) {
        items.push({
          source,
          index: at,
          line,
          errors: [{ field: '(line)', message: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` }],
        });
        continue;
      }
      items.push({ source, index: at, line, record });
    }
    yield items;
  }
}

async function* csvRows(source: SeedSource): AsyncGenerator<SourceItem> {
  const parser = createReadStream(source.path, { highWaterMark: 1 << 20 }).pipe(
    parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1_048_576 }),
  );
  let header: CsvHeader | null = null;
  let index = 0;
  try {
    for await (const { record: row, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (header === null) {
        const checked = checkCsvHeader(row);
        if ('errors' in checked) {
          yield { source, index: -1, line: info.lines, errors: checked.errors };
          return;
        }
        header = checked.header;
        continue;
      }
      const at = index++;
      const mapped = csvRowToRecord(header, row);
      // Literals, not spreads: see jsonLines.
      yield 'errors' in mapped
        ? { source, index: at, line: info.lines, errors: mapped.errors }
        : { source, index: at, line: info.lines, record: mapped.record };
    }
  } catch (error) {
    // A malformed file (an unclosed quote, a huge record) cannot be read past this point.
    throw new SourceError(`${source.display}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    parser.destroy();
  }
  if (header === null) throw new SourceError(`${source.display}: empty CSV file (a header row is required)`);
}

/** Records handed on at once from a source read whole (JSON) or record by record (CSV). */
const RECORDS_PER_STEP = 1000;

/** Every record of a source, in file order, some at a time (see lineChunks). */
export async function* readSourceSteps(source: SeedSource): AsyncGenerator<SourceItem[]> {
  switch (source.format) {
    case 'json': {
      const records = await readJsonArray(source);
      const order = source.resource === 'events' ? parentsFirst(records) : records.map((_, i) => i);
      for (let i = 0; i < order.length; i += RECORDS_PER_STEP) {
        yield order.slice(i, i + RECORDS_PER_STEP).map((index) => ({ source, index, record: records[index] }));
      }
      return;
    }
    case 'jsonl':
      yield* jsonLines(source);
      return;
    case 'csv': {
      let step: SourceItem[] = [];
      for await (const item of csvRows(source)) {
        step.push(item);
        if (step.length >= RECORDS_PER_STEP) {
          yield step;
          step = [];
        }
      }
      if (step.length > 0) yield step;
      return;
    }
  }
}

/** Every record of a source, in file order. */
export async function* readSource(source: SeedSource): AsyncGenerator<SourceItem> {
  for await (const step of readSourceSteps(source)) yield* step;
}

/**
 * The order in which to load the events of a JSON file so that a series' parent (`post_parent`)
 * comes before its occurrences, wherever it stands in the file; otherwise the file's order.
 * (Streamed files are read in file order: there a parent must come first.)
 */
export function parentsFirst(records: readonly unknown[]): number[] {
  const slugOf = (r: unknown): string | undefined => {
    if (typeof r !== 'object' || r === null) return undefined;
    const { slug, title } = r as { slug?: unknown; title?: unknown };
    return typeof slug === 'string' ? slug : typeof title === 'string' ? slugFrom(title, '') : undefined;
  };
  const bySlug = new Map<string, number>();
  records.forEach((r, i) => {
    const slug = slugOf(r);
    if (slug !== undefined && !bySlug.has(slug)) bySlug.set(slug, i);
  });
  const order: number[] = [];
  const state = new Uint8Array(records.length); // 0 new, 1 visiting, 2 done
  const visit = (i: number): void => {
    if (state[i] !== 0) return; // a cycle is reported by validation, not here
    state[i] = 1;
    const parent = (records[i] as { post_parent?: unknown } | null)?.post_parent;
    const at = typeof parent === 'string' ? bySlug.get(parent) : undefined;
    if (at !== undefined) visit(at);
    state[i] = 2;
    order.push(i);
  };
  records.forEach((_, i) => visit(i));
  return order;
}

/** "file[3]" for JSON, "file:12" (line) for JSON Lines and CSV: where to look in the file. */
export function formatPosition(position: RecordPosition): string {
  if (position.index < 0) return `${position.source.display}:${position.line ?? 1}`;
  return position.line === undefined ? `${position.source.display}[${position.index}]` : `${position.source.display}:${position.line}`;
}
