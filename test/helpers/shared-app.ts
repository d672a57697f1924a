/**
 * One app for a whole suite, on a new empty store for every test.
 *
 * Building an app compiles the validators and serializers of every route, which costs far more
 * than most tests that use it; suites whose every test needs an empty store (a list sees all that
 * is stored) share one app and swap the store under it instead. The app holds a storage that
 * forwards every call to the store of the current test, so the services, the storage deadline and
 * the routes are the same code on the same kind of storage as with `openTestApp`.
 *
 * What an app keeps beyond its store, and why sharing it changes no answer:
 * - the serialization memos are keyed by document object, which a new store never hands out;
 * - the term-count memo (src/services/terms.ts) is dropped by every event write: `fresh()` creates
 *   one event in the outgoing store before swapping, so the next test starts without it (and an app
 *   whose outgoing store refuses that write is replaced by a new one);
 * - the response cache is stamped with the storage's change version: the forwarded version goes on
 *   from where the outgoing store's stopped (a new store counts from 0), so no entry of an earlier
 *   test is ever current;
 * - the rate limiters keep counting across tests, so suites that turn them on use `openTestApp`.
 */
import { type FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { COLLECTION_NAMES, type Storage } from '../../src/storage/port.js';
import { API, EDITOR, type TestApp, makeEventInput, testConfig } from './app.js';
import { type EngineUnderTest } from './engines.js';

export interface SharedTestApp {
  /** The suite's app on a new empty store (the previous test's store is closed); `now` is its clock. */
  fresh(options?: { now?: () => Date }): Promise<TestApp>;
  /** Closes the app and the current store. */
  close(): Promise<void>;
}

type AnyFunction = (...args: unknown[]) => unknown;

/** A Storage that forwards each call to `current()` at the time of the call; `changeVersion` adds `versionBase()`. */
function forwardingStorage(current: () => Storage, versionBase: () => number): Storage {
  // Stable functions and collection objects: the app's wrappers capture them once, at build time.
  const forwarders = new Map<string, AnyFunction>();
  const forwarder = (key: string, target: () => object): AnyFunction => {
    let fn = forwarders.get(key);
    if (fn === undefined) {
      const name = key.slice(key.lastIndexOf('.') + 1);
      fn = (...args) => {
        const object = target() as Record<string, AnyFunction>;
        return object[name]!(...args);
      };
      forwarders.set(key, fn);
    }
    return fn;
  };
  const forwarding = (target: () => object, prefix: string): ProxyHandler<object> => ({
    get(_, property) {
      const value: unknown = Reflect.get(target(), property);
      return typeof value === 'function' && typeof property === 'string' ? forwarder(`${prefix}${property}`, target) : value;
    },
    has: (_, property) => Reflect.has(target(), property),
  });
  const collections = new Map<string, object>(
    COLLECTION_NAMES.map((name) => [
      name,
      new Proxy(
        {},
        forwarding(() => current()[name], `${name}.`),
      ),
    ]),
  );
  const top = forwarding(current, '');
  const changeVersion = () => versionBase() + current().changeVersion();
  return new Proxy(
    {},
    {
      ...top,
      get: (object, property, receiver): unknown =>
        property === 'changeVersion'
          ? changeVersion
          : typeof property === 'string' && collections.has(property)
            ? collections.get(property)
            : (top.get!(object, property, receiver) as unknown),
    },
  ) as Storage;
}

/**
 * A shared app on `engine` with `env` (see the top of this file). Rate limits must stay off: a
 * limiter's counts would carry from one test to the next.
 */
export function sharedTestApp(engine: EngineUnderTest, env: Record<string, string> = {}): SharedTestApp {
  if (Object.keys(env).some((key) => key.startsWith('RATE_LIMIT_'))) throw new Error('sharedTestApp: rate limits need an app per test (openTestApp)');
  let store: Storage | null = null;
  let versionBase = 0;
  let clock: () => Date = () => new Date();
  let app: FastifyInstance | null = null;

  async function build(): Promise<FastifyInstance> {
    const built = buildApp({
      config: testConfig(env),
      storage: forwardingStorage(
        () => store!,
        () => versionBase,
      ),
      logger: false,
      now: () => clock(),
    });
    await built.ready();
    return built;
  }

  /** Drops the app's term-count memo with an event write; false when the store refuses it. */
  async function retire(current: FastifyInstance): Promise<boolean> {
    const response = await current.inject({ method: 'POST', url: `${API}/events`, headers: EDITOR, payload: makeEventInput({ title: 'Retired store' }) });
    return response.statusCode === 201;
  }

  return {
    async fresh(options = {}) {
      clock = () => new Date();
      const previous = store;
      if (app !== null && previous !== null && !(await retire(app))) {
        await app.close();
        app = null;
      }
      if (previous !== null) versionBase += previous.changeVersion() + 1;
      store = await engine.open();
      await previous?.close();
      app ??= await build();
      clock = options.now ?? (() => new Date());
      return { app, storage: store, close: async () => undefined };
    },
    async close() {
      await app?.close();
      await store?.close();
      app = null;
      store = null;
    },
  };
}
