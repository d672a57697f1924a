import { type EventTerm } from '../schemas/terms.js';
import { type TermDoc } from '../storage/port.js';
import { type SerializeContext } from './context.js';

export type Taxonomy = 'categories' | 'tags';

export const TAXONOMY_NAME: Record<Taxonomy, string> = { categories: 'tribe_events_cat', tags: 'post_tag' };

export function termUrls(doc: TermDoc, taxonomy: Taxonomy, ctx: SerializeContext): EventTerm['urls'] {
  const collection = `${ctx.apiBase}/${taxonomy}`;
  const urls: EventTerm['urls'] = { self: `${collection}/${doc._id}`, collection };
  if (doc.parent !== 0) urls.up = `${collection}/${doc.parent}`;
  return urls;
}

/** A term as embedded in an event (reference §2.6 b). `count` = published events using it. */
export function serializeEventTerm(doc: TermDoc, taxonomy: Taxonomy, count: number, ctx: SerializeContext): EventTerm {
  return {
    name: doc.name,
    slug: doc.slug,
    term_group: 0,
    term_taxonomy_id: doc._id,
    taxonomy: TAXONOMY_NAME[taxonomy],
    description: doc.description,
    parent: doc.parent,
    count,
    filter: 'raw',
    id: doc._id,
    urls: termUrls(doc, taxonomy, ctx),
  };
}
