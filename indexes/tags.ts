import { type IndexDefinition } from '../src/storage/port.js';

export const tagIndexes: IndexDefinition[] = [
  { name: 'tags_slug_unique', key: { slug: 1 }, unique: true },
  // Duplicate tag names are refused (`term_exists`), race-free.
  { name: 'tags_name_unique', key: { nameKey: 1 }, unique: true },
] satisfies IndexDefinition[];
