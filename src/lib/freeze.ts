/**
 * Freezes a value in place, objects and arrays at every depth. Dates keep their setters (a Date
 * cannot be frozen); nothing in the service mutates one. Already frozen parts (shared with a
 * previous version of a document, or a memoised serialization) are not walked again.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || value instanceof Date || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const element of value) deepFreeze(element);
  else for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
