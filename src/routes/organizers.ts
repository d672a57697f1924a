import {
  OrganizerCreateSchema,
  OrganizerListQuerySchema,
  OrganizerListResponseSchema,
  OrganizerPatchSchema,
  OrganizerResponseSchema,
} from '../schemas/organizers.js';
import { serializeOrganizer } from '../serialize/organizers.js';
import { type OrganizersService } from '../services/organizers.js';
import { type OrganizerDoc } from '../storage/port.js';
import { type ApiRouteOptions } from './context.js';
import { linkedPostRoutes } from './linked-posts.js';

export const organizerRoutes = linkedPostRoutes<OrganizerDoc>();

export const organizerRouteOptions = (base: ApiRouteOptions, service: OrganizersService) => ({
  ...base,
  path: 'organizers' as const,
  service: service as never,
  serialize: serializeOrganizer,
  schemas: {
    create: OrganizerCreateSchema,
    patch: OrganizerPatchSchema,
    listQuery: OrganizerListQuerySchema,
    response: OrganizerResponseSchema,
    listResponse: OrganizerListResponseSchema,
  },
});
