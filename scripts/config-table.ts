/**
 * The README's configuration table, generated from the settings' schema (src/config.ts), so the
 * documented variables, defaults, bounds and meanings are the ones the service applies.
 *
 *   npm run docs:config        # rewrites the table between the markers in README.md
 *
 * test/unit/config-table.test.ts fails while README.md holds another table than this one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigSchema, FALSE_WORDS, TRUE_WORDS } from '../src/config.js';

export const TABLE_START = '<!-- config-table:start -->';
export const TABLE_END = '<!-- config-table:end -->';
export const README = fileURLToPath(new URL('../README.md', import.meta.url));

interface Setting {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
  description?: string;
  docDefault?: string;
  docValues?: string;
}

const code = (value: unknown): string => `\`${String(value)}\``;
/** A table cell: a `|` would end it. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

function defaultOf(setting: Setting): string {
  if (setting.docDefault !== undefined) return setting.docDefault;
  return setting.default === undefined ? '—' : code(setting.default);
}

function valuesOf(setting: Setting): string {
  if (setting.enum !== undefined) return setting.enum.map(code).join(', ');
  switch (setting.type) {
    case 'integer':
      return `${code(setting.minimum)} – ${code(setting.maximum)}`;
    case 'boolean':
      return `${code(true)}, ${code(false)}`;
    default:
      return setting.docValues ?? 'text';
  }
}

/** The generated block: the table, and how every value is read. */
export function configTable(): string {
  const rows = Object.entries(ConfigSchema.properties as Record<string, Setting>).map(
    ([name, setting]) => `| ${code(name)} | ${cell(defaultOf(setting))} | ${cell(valuesOf(setting))} | ${cell(setting.description ?? '')} |`,
  );
  return [
    '| Variable | Default | Values | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    `A blank value counts as unset. Booleans also accept ${TRUE_WORDS.slice(1).map(code).join(', ')} and ` +
      `${FALSE_WORDS.slice(1).map(code).join(', ')}, in any case; numbers are whole numbers in digits.`,
  ].join('\n');
}

/** `readme` with the block between the markers replaced by `table`. */
export function withConfigTable(readme: string, table = configTable()): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${TABLE_START} … ${TABLE_END} block`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const before = readFileSync(README, 'utf8');
  const after = withConfigTable(before);
  if (after === before) {
    console.log('README.md: configuration table up to date');
  } else {
    writeFileSync(README, after);
    console.log('README.md: configuration table rewritten');
  }
}
