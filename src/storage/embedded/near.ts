/**
 * MongoDB's $geoNear over one collection: the documents whose point lies within a distance of a
 * point, with their exact great-circle distances, nearest first. The 2dsphere index lists the
 * candidates in the cap and their distances; the filter's matches are tested on those alone.
 */
import { type NearHit, type NearQuery } from '../port.js';
import { type DocumentTable } from './document-table.js';
import { refuse } from './filter.js';
import { type LngLat } from './geo-index.js';
import { type IndexSet } from './index-set.js';
import { hasText, type QueryExecution } from './query.js';

/** Nearest first, ties by _id. */
export function geoNear(queries: QueryExecution, indexes: IndexSet, table: DocumentTable, field: string, query: NearQuery): NearHit[] {
  const index = indexes.geoIndexOn(field);
  // MongoDB: "$geoNear requires a 2d or 2dsphere index".
  if (index === undefined) refuse(`$geoNear needs a 2dsphere index on ${field}, and collection ${queries.name} has none.`);
  const expr = queries.parse(query.filter);
  // MongoDB refuses $text inside $geoNear's query.
  if (hasText(expr)) refuse('$geoNear cannot be combined with $text.');
  const center: LngLat = query.point;
  const inCap = index.nearest(center, query.maxDistance);
  if (inCap.slots.length === 0) return [];
  const slotIds = table.slotIds;
  const hits = queries.read(() => {
    const matches = queries.match(expr);
    const found: NearHit[] = [];
    for (let i = 0; i < inCap.slots.length; i++) {
      const slot = inCap.slots[i]!;
      if (!matches.has(slot)) continue;
      // The points the index holds for the document are the ones its field yields.
      found.push({ _id: slotIds[slot]!, distance: inCap.angles[i]! });
    }
    return found;
  });
  // In order of distance already (the geo index's): the merge sort only orders ties by id.
  return hits.sort((a, b) => a.distance - b.distance || a._id - b._id);
}
