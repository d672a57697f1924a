import { type EventTerm, type TermResponse } from '../schemas/terms.js';
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

/** A term as embedded in an event (embedded shape). `count` = published events using it. */
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

/** Public archive links of the reference's permalink structure. */
export function termArchiveUrl(doc: TermDoc, taxonomy: Taxonomy, ctx: SerializeContext): string {
  const path = taxonomy === 'categories' ? 'events/category' : 'tag';
  return `${ctx.siteUrl}/${path}/${encodeURIComponent(doc.slug)}/`;
}

/** The standalone term object (standalone shape). */
export function serializeTerm(doc: TermDoc, taxonomy: Taxonomy, count: number, ctx: SerializeContext): TermResponse {
  const url = termArchiveUrl(doc, taxonomy, ctx);
  const urls = termUrls(doc, taxonomy, ctx);
  // Two literals rather than spreads of a shared head: a spread plus new keys gives every object a
  // hidden class of its own (V8), which the response serializer then reads field by field.
  if (taxonomy === 'categories') {
    return {
      id: doc._id,
      count,
      description: doc.description,
      name: doc.name,
      slug: doc.slug,
      taxonomy: TAXONOMY_NAME[taxonomy],
      parent: doc.parent,
      meta: [],
      url,
      urls,
    };
  }
  return { id: doc._id, count, description: doc.description, name: doc.name, slug: doc.slug, taxonomy: TAXONOMY_NAME[taxonomy], meta: [], url, urls };
}
