/**
 * `If-Match` on the writes of one record (RFC 9110 §13.1.1): the write goes ahead only while the
 * record's current representation — what `GET` of the same path, without parameters, answers the
 * same caller — still has one of the entity tags named (`*`: any representation). Otherwise, and
 * when the record does not exist, 412 `rest_precondition_failed` and nothing is written. The
 * service runs the check under the record's write lock, right before the write, so no other write
 * of this process lands between them. Without `If-Match` a write behaves as before.
 */
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError, GoneError, NotFoundError } from '../errors.js';
import { etagOf, ifMatchHolds } from '../lib/etag.js';

export const preconditionFailed = (): ApiError => new ApiError(412, 'rest_precondition_failed', 'errorMessage.rest_precondition_failed');

/** The check a service runs on the current record: its representation's bytes, null when it has none. */
export type Precondition<T> = (current: T | null) => void;

/**
 * Runs `write` with the precondition of the request's `If-Match` (none without the header).
 * `represent` gives the bytes `GET` would answer for the current record.
 */
export async function withIfMatch<T, R>(
  request: FastifyRequest,
  represent: (current: T) => string,
  write: (precondition: Precondition<T> | undefined) => Promise<R>,
): Promise<R> {
  const header = request.headers['if-match'];
  if (header === undefined) return write(undefined);
  const precondition: Precondition<T> = (current) => {
    if (!ifMatchHolds(header, current === null ? null : etagOf(represent(current)))) throw preconditionFailed();
  };
  try {
    return await write(precondition);
  } catch (error) {
    // No current representation: the condition is false (`*` included).
    if (error instanceof NotFoundError || error instanceof GoneError) throw preconditionFailed();
    throw error;
  }
}

/** The bytes the route's 200 serializer writes for `value`: what a GET of the record answers. */
export const serialized = (reply: FastifyReply, value: object): string => reply.serializeInput(value as Record<string, unknown>, '200') as string;
