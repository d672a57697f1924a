/**
 * Index listings as MongoDB's `listIndexes` returns them, for the index-sync tests' stand-in
 * databases: text keys folded into `_fts`/`_ftsx` with every text field in `weights` (default 1, in
 * field-name order), English by default, and the options the server echoes.
 */
import { type ListedIndex } from '../../src/storage/mongodb/index-diff.js';
import { type IndexDefinition } from '../../src/storage/port.js';

/** What MongoDB lists for an index created from a definition. */
export function asListed(def: IndexDefinition): ListedIndex {
  const entries = Object.entries(def.key);
  const textFields = entries.filter(([, v]) => v === 'text').map(([f]) => f);
  if (textFields.length === 0) {
    return {
      v: 2,
      key: { ...def.key },
      name: def.name,
      ...(def.unique ? { unique: true } : {}),
      ...(def.expireAfterSeconds !== undefined ? { expireAfterSeconds: def.expireAfterSeconds } : {}),
      ...(Object.values(def.key).includes('2dsphere') ? { '2dsphereIndexVersion': 3 } : {}),
    };
  }
  const key: Record<string, unknown> = {};
  for (const [field, value] of entries) {
    if (value !== 'text') key[field] = value;
    else if (!('_fts' in key)) Object.assign(key, { _fts: 'text', _ftsx: 1 });
  }
  const weights = Object.fromEntries(textFields.sort().map((f) => [f, def.weights?.[f] ?? 1]));
  return { v: 2, key, name: def.name, weights, default_language: def.default_language ?? 'english', language_override: 'language', textIndexVersion: 3 };
}

export const ID_INDEX: ListedIndex = { v: 2, key: { _id: 1 }, name: '_id_' };
