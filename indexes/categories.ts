import { type IndexDefinition } from '../src/storage/port.js';

export const categoryIndexes: IndexDefinition[] = [
  // Categories are addressed by id; slugs stay unique (WordPress term slugs).
  { name: 'categories_slug_unique', key: { slug: 1 }, unique: true },
  // Duplicate names are refused under the same parent (`term_exists`), race-free.
  { name: 'categories_parent_name_unique', key: { parent: 1, nameKey: 1 }, unique: true },
] satisfies IndexDefinition[];
