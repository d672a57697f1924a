/**
 * Storage with I/O latency, for concurrency tests. The embedded engine answers within the same
 * tick, so requests fired together with `Promise.all` would run one after the other and a race
 * could never show. This wrapper yields to the event loop before and after every storage call
 * (as a network round trip to MongoDB does), so concurrent requests interleave at each call.
 * The engine itself is untouched: every call goes to the real collection.
 */
import { type Storage } from '../../src/storage/port.js';
import { type EngineUnderTest } from './engines.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function withLatencyOn<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await tick();
        try {
          return await (value as (...a: unknown[]) => unknown).apply(object, args);
        } finally {
          await tick();
        }
      };
    },
  });
}

const COLLECTIONS = new Set(['events', 'venues', 'organizers', 'categories', 'tags']);

export function withLatency(storage: Storage): Storage {
  const collections = new Map<string, unknown>();
  return new Proxy(storage, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof property === 'string' && COLLECTIONS.has(property)) {
        if (!collections.has(property)) collections.set(property, withLatencyOn(value as object));
        return collections.get(property);
      }
      // Sequences (nextId) are round trips too; lifecycle calls stay direct.
      if (property === 'nextId') return withLatencyOn({ nextId: (value as Storage['nextId']).bind(object) }).nextId;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}

/** The same engine, each storage it opens wrapped with latency. */
export function slowEngine(engine: EngineUnderTest): EngineUnderTest {
  return { name: engine.name, open: async () => withLatency(await engine.open()) };
}
