import { TagCreateSchema, TagResponseSchema, TagListQuerySchema, TagListResponseSchema, TagPatchSchema } from '../schemas/terms.js';
import { type TermsService } from '../services/terms.js';
import { type ApiRouteOptions } from './context.js';

export { termRoutes as tagRoutes } from './terms.js';

export const tagRouteOptions = (base: ApiRouteOptions, service: TermsService) => ({
  ...base,
  service,
  schemas: { create: TagCreateSchema, patch: TagPatchSchema, listQuery: TagListQuerySchema, response: TagResponseSchema, listResponse: TagListResponseSchema },
});
