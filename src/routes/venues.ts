import { VenueCreateSchema, VenueListQuerySchema, VenueListResponseSchema, VenuePatchSchema, VenueResponseSchema } from '../schemas/venues.js';
import { serializeVenue } from '../serialize/venues.js';
import { type VenuesService } from '../services/venues.js';
import { type VenueDoc } from '../storage/port.js';
import { type ApiRouteOptions } from './context.js';
import { linkedPostRoutes } from './linked-posts.js';

export const venueRoutes = linkedPostRoutes<VenueDoc>();

export const venueRouteOptions = (base: ApiRouteOptions, service: VenuesService) => ({
  ...base,
  path: 'venues' as const,
  service: service as never,
  serialize: serializeVenue,
  schemas: {
    create: VenueCreateSchema,
    patch: VenuePatchSchema,
    listQuery: VenueListQuerySchema,
    response: VenueResponseSchema,
    listResponse: VenueListResponseSchema,
  },
});
