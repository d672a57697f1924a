import { CategoryCreateSchema, CategoryResponseSchema, CategoryListQuerySchema, CategoryListResponseSchema, CategoryPatchSchema } from '../schemas/terms.js';
import { type TermsService } from '../services/terms.js';
import { type ApiRouteOptions } from './context.js';

export { termRoutes as categoryRoutes } from './terms.js';

export const categoryRouteOptions = (base: ApiRouteOptions, service: TermsService) => ({
  ...base,
  service,
  schemas: {
    create: CategoryCreateSchema,
    patch: CategoryPatchSchema,
    listQuery: CategoryListQuerySchema,
    response: CategoryResponseSchema,
    listResponse: CategoryListResponseSchema,
  },
});
