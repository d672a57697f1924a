/**
 * README.md's configuration table is generated from the settings' schema (scripts/config-table.ts):
 * it must be the generated one, so every variable the service reads is documented with the
 * default, bounds and meaning it has. On a difference, `npm run docs:config` rewrites it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README, TABLE_END, TABLE_START, configTable, withConfigTable } from '../../scripts/config-table.js';
import { ConfigSchema, loadConfig } from '../../src/config.js';

const readme = readFileSync(README, 'utf8');

describe('README configuration table', () => {
  it('is the table generated from the schema (npm run docs:config rewrites it)', () => {
    expect(readme).toContain(TABLE_START);
    expect(readme).toContain(TABLE_END);
    expect(withConfigTable(readme)).toBe(readme);
  });

  it('has a row for every setting, with its default', () => {
    const table = configTable();
    const defaults = loadConfig({});
    for (const [name, setting] of Object.entries(ConfigSchema.properties)) {
      expect(table).toContain(`| \`${name}\` |`);
      expect(setting.description, name).toBeTruthy();
    }
    expect(table).toContain(`| \`PORT\` | \`${defaults.port}\` | \`0\` – \`65535\` |`);
    expect(table).toContain(`| \`SERIALIZATION_ARENA_MB\` | \`${defaults.serializationArenaMb}\` |`);
  });

  it('replaces only what lies between the markers', () => {
    const text = `before\n${TABLE_START}\nold table\n${TABLE_END}\nafter\n`;
    expect(withConfigTable(text, 'new table')).toBe(`before\n${TABLE_START}\nnew table\n${TABLE_END}\nafter\n`);
    expect(() => withConfigTable('no markers')).toThrow(/config-table:start/);
  });
});
