import { type Static, Type } from '@sinclair/typebox';

export const TermUrlsSchema = Type.Object({
  self: Type.String(),
  collection: Type.String(),
  up: Type.Optional(Type.String()),
});

/**
 * A category or tag as embedded in an event (reference §2.6 b): the raw term record with
 * `term_id` renamed to `id` and moved to the end, plus `urls`; no `url`, no `meta`.
 */
export const EventTermSchema = Type.Object(
  {
    name: Type.String(),
    slug: Type.String(),
    term_group: Type.Integer(),
    term_taxonomy_id: Type.Integer(),
    taxonomy: Type.String(),
    description: Type.String(),
    parent: Type.Integer(),
    count: Type.Integer(),
    filter: Type.String(),
    id: Type.Integer(),
    urls: TermUrlsSchema,
  },
  { additionalProperties: false },
);
export type EventTerm = Static<typeof EventTermSchema>;
