import { type OrganizerCreate } from '../schemas/organizers.js';
import { type OrganizerDoc } from '../storage/port.js';
import { type ParamErrors } from './input.js';
import { createLinkedPostService, type LinkedPostServiceDeps } from './linked-posts.js';

export const organizerDefinition = {
  kind: 'organizer',
  collection: 'organizers',
  nameField: 'organizer',
  slugIndex: 'organizers_slug_unique',
  eventField: 'organizerIds',
  blank: () => ({ phone: '', email: '' }),
  // The reference checks no e-mail format; phone and e-mail are kept as sent, trimmed.
  resolveOwn(input: OrganizerCreate, _current: OrganizerDoc | null, set: Partial<OrganizerDoc>, _errors: ParamErrors) {
    if (input.phone !== undefined) set.phone = input.phone.trim();
    if (input.email !== undefined) set.email = input.email.trim();
  },
  searchTexts: (d: OrganizerDoc) => [d.name, d.description, d.phone, d.email, d.website],
} as const;

export function createOrganizersService(deps: LinkedPostServiceDeps) {
  return createLinkedPostService<OrganizerDoc, OrganizerCreate>(organizerDefinition, deps);
}
export type OrganizersService = ReturnType<typeof createOrganizersService>;
