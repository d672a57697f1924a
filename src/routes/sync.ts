/**
 * Incremental sync (docs/api.md, "Incremental sync"): `GET /deleted` lists the records that left
 * the lists since an instant; the lists' own `modified_after` gives what changed.
 */
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { totalPages } from '../query/paging.js';
import { ErrorResponses } from '../schemas/common.js';
import { DeletedListQuerySchema, DeletedListResponseSchema } from '../schemas/sync.js';
import { listHeaders, listLinks } from '../serialize/list.js';
import { serializeTombstone } from '../serialize/tombstones.js';
import { type Tombstones } from '../services/tombstones.js';
import { type ApiRouteOptions, serializeContext } from './context.js';

export interface SyncRoutesOptions extends ApiRouteOptions {
  tombstones: Pick<Tombstones, 'list'>;
}

export const syncRoutes: FastifyPluginAsyncTypebox<SyncRoutesOptions> = async (app, options) => {
  app.get(
    '/deleted',
    {
      // Not kept: a relative `since` moves with the clock, and an absolute one expires (410) with it.
      config: { responseCache: false },
      schema: { querystring: DeletedListQuerySchema, response: { 200: DeletedListResponseSchema, ...ErrorResponses } },
    },
    async (request, reply) => {
      const { items, total, paging, args } = await options.tombstones.list(request.query, request.caller);
      const ctx = serializeContext(request, options, false);
      const meta = { page: paging.page, perPage: paging.perPage, total, args };
      // Past the last page an empty 200, as on the term lists: a client stops at total_pages.
      const links = listLinks(`${ctx.apiBase}/deleted`, meta, true);
      void reply.headers(listHeaders(links, meta));
      return { deleted: items.map(serializeTombstone), ...links, total, total_pages: totalPages(total, paging.perPage) };
    },
  );
};
