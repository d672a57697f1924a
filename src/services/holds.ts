/**
 * Records created inside the write of an event that is not public must not tell anonymous callers
 * what that event is about. A venue or organizer created by a draft, pending, private (or trashed)
 * event's write takes the event's status and is `held`: it is published when an event using it is
 * published. One created by a scheduled event's write is scheduled for the same instant, so both
 * appear together without a further write. A term created by any such write is `held` and stays
 * out of anonymous view while no public event uses it (src/services/terms.ts). Editing a held
 * record through its own route ends the hold. A status given in the nested record itself is the
 * editor's explicit choice and wins.
 */
import { type EventDoc, type PostStatus } from '../storage/port.js';

/** What a record created inside an event write starts as while the event is not public. */
export interface Hold {
  status: PostStatus;
  /** A scheduled event's publication instant, shared by the record. */
  dateUtc?: Date;
  /** Whether the record waits for an event's publication (false: its own schedule publishes it). */
  held: boolean;
}

type EventState = Pick<EventDoc, 'status' | 'dateUtc'>;

/** The hold of the records an event write creates; null when the event is published. */
export function holdOf(event: EventState): Hold | null {
  switch (event.status) {
    case 'publish':
      return null;
    case 'future':
      return { status: 'future', dateUtc: event.dateUtc, held: false };
    case 'trash':
      return { status: 'draft', held: true };
    default:
      return { status: event.status, held: true };
  }
}

/** What a held venue or organizer becomes once an event using it is published or scheduled; null: it stays held. */
export function releaseOf(event: EventState): Pick<Hold, 'status' | 'dateUtc'> | null {
  if (event.status === 'publish') return { status: 'publish' };
  if (event.status === 'future') return { status: 'future', dateUtc: event.dateUtc };
  return null;
}

/** The fields of a nested new venue or organizer under `hold` (unchanged when it names its own status). */
export function heldFields<T extends { status?: PostStatus; dateUtc?: Date; held?: boolean }>(fields: T, hold: Hold | null): T {
  if (hold === null || fields.status !== undefined) return fields;
  const held: T = { ...fields, status: hold.status };
  if (hold.dateUtc !== undefined) held.dateUtc = hold.dateUtc;
  if (hold.held) held.held = true;
  return held;
}
