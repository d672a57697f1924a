/**
 * Events as CSV: one event a row, a header row naming the columns (any order, any subset that
 * includes the required ones). Cells are the API's values as text; an empty cell leaves the field out.
 * List columns (organizer, categories, tags) hold slugs separated by commas (quote the cell).
 * docs/seeding.md documents these columns.
 */
import { type FieldError } from './schemas.js';

export const CSV_COLUMNS = [
  'slug',
  'title',
  'start_date',
  'end_date',
  'timezone',
  'all_day',
  'venue',
  'organizer',
  'categories',
  'tags',
  'cost',
  'website',
  'featured',
  'sticky',
  'hide_from_listings',
  'show_map',
  'show_map_link',
  'ticketed',
  'status',
  'post_parent',
  'description',
  'excerpt',
  'image',
  'author',
  'date',
  'date_utc',
] as const;

export const CSV_REQUIRED_COLUMNS = ['title', 'start_date', 'end_date'] as const;
const LIST_COLUMNS = new Set(['organizer', 'categories', 'tags']);
const KNOWN = new Set<string>(CSV_COLUMNS);

export interface CsvHeader {
  columns: string[];
}

/** Checks the header row: every column known, none twice, the required ones present. */
export function checkCsvHeader(row: string[]): { header: CsvHeader } | { errors: FieldError[] } {
  const columns = row.map((cell) => cell.trim().toLowerCase());
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const column of columns) {
    if (!KNOWN.has(column)) errors.push({ field: column || '(empty)', message: `Unknown column "${column}"; the columns are ${CSV_COLUMNS.join(', ')}.` });
    else if (seen.has(column)) errors.push({ field: column, message: `Column "${column}" appears twice.` });
    seen.add(column);
  }
  for (const required of CSV_REQUIRED_COLUMNS) {
    if (!seen.has(required)) errors.push({ field: required, message: `The header has no "${required}" column.` });
  }
  return errors.length > 0 ? { errors } : { header: { columns } };
}

/** A data row as a seed event record (validated afterwards like any other record). */
export function csvRowToRecord(header: CsvHeader, row: string[]): { record: Record<string, unknown> } | { errors: FieldError[] } {
  if (row.length !== header.columns.length) {
    return { errors: [{ field: '(row)', message: `The row has ${row.length} cells; the header has ${header.columns.length}.` }] };
  }
  const record: Record<string, unknown> = {};
  header.columns.forEach((column, i) => {
    const cell = row[i] as string;
    if (cell.trim() === '') return;
    record[column] = LIST_COLUMNS.has(column)
      ? cell
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '')
      : cell;
  });
  return { record };
}
