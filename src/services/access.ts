/**
 * Who is asking, and what they may see. Visibility is evaluated at read time, so a scheduled
 * (`future`) post becomes public at its publication instant without any job running.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { type Role } from '../config.js';
import { type PostStatus } from '../storage/port.js';

export interface Caller {
  role: Role;
  authorId: number;
}

export const isTokenHolder = (caller: Caller | null): caller is Caller => caller !== null;
export const canWrite = (caller: Caller | null): boolean => caller?.role === 'editor';

/** The status a reader sees: `future` turns into `publish` once its date has passed. */
export function effectiveStatus(doc: { status: PostStatus; dateUtc: Date }, now: Date): PostStatus {
  return doc.status === 'future' && doc.dateUtc.getTime() <= now.getTime() ? 'publish' : doc.status;
}

/**
 * A write that leaves a post published with a publication date still to come schedules it
 * (`future`), as WordPress does; effectiveStatus shows it published once that date has passed.
 */
export function scheduleIfFuture(set: { status?: PostStatus; dateUtc?: Date }, current: { status: PostStatus; dateUtc: Date } | null, at: Date): void {
  const status = set.status ?? current?.status ?? 'publish';
  const when = set.dateUtc ?? current?.dateUtc ?? at;
  if (status === 'publish' && when.getTime() > at.getTime()) set.status = 'future';
}

/**
 * The document as a reader sees it: itself when its status stands (so serializations memoised per
 * stored document keep hitting), a copy with `publish` once a scheduled date has passed.
 */
export function asSeen<D extends { status: PostStatus; dateUtc: Date }>(doc: D, now: Date): D {
  const status = effectiveStatus(doc, now);
  return status === doc.status ? doc : { ...doc, status };
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time comparison of a presented password with the stored one. */
export function passwordMatches(stored: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(stored), digest(presented));
}

/**
 * Whether an event may be used as a list parameter (`event`, `post`, `post_parent`) by this caller:
 * anonymous callers may only name published, unprotected events, so a list cannot reveal anything
 * about an event they could not read. Others are treated as not existing.
 */
export function eventUsableBy(doc: { status: PostStatus; dateUtc: Date; password: string | null } | null, caller: Caller | null, now: Date): boolean {
  if (doc === null) return false;
  return caller !== null || (effectiveStatus(doc, now) === 'publish' && doc.password === null);
}

/**
 * Whose term counts a caller is shown: `all` published events for an editor, who can read every
 * event in full; for everyone else `public`, the published events whose terms a list shows them
 * (not protected, not hidden from listings).
 */
export type CountAudience = 'all' | 'public';
export const countAudienceOf = (caller: Caller | null): CountAudience => (caller?.role === 'editor' ? 'all' : 'public');
