/**
 * Loading of the gazetteer's data packages: each is loaded once, on first use, copied into compact
 * indexes, and then forgotten by the module cache; a failed load is remembered, not retried.
 */
import { createRequire } from 'node:module';

/**
 * Loads a CommonJS package, hands it to `build`, then forgets every module that the load added to
 * the CommonJS cache (the package and its private dependencies), so that once `build` has copied
 * what it needs into compact indexes the package's raw data can be garbage-collected. A fresh
 * `require` is made per load because its parent module keeps a list of the modules it loaded.
 */
export function loadAndForget<T, R>(pkg: string, build: (mod: T) => R): R {
  const load = createRequire(import.meta.url);
  const before = new Set(Object.keys(load.cache));
  try {
    return build(load(pkg) as T);
  } finally {
    for (const key of Object.keys(load.cache)) {
      if (!before.has(key)) delete load.cache[key];
    }
  }
}

/** Memoises a loader; a failure is remembered and yields null from then on. */
export function lazy<T>(load: () => T): () => T | null {
  let state: { ok: true; value: T } | { ok: false } | undefined;
  return () => {
    if (!state) {
      try {
        state = { ok: true, value: load() };
      } catch {
        state = { ok: false };
      }
    }
    return state.ok ? state.value : null;
  };
}
