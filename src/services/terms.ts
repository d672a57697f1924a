/**
 * Categories and tags (taxonomy terms): one service per taxonomy built from the same code.
 * Categories form a tree (src/query/category-tree.ts); tags are flat. Terms are deleted for good.
 */
import { slugFrom } from '../lib/slug.js';
import { ApiError, ConflictError, DuplicateKeyError, InvalidParamsError, NotFoundError } from '../errors.js';
import { childrenOf, createsCycle, withDescendants } from '../query/category-tree.js';
import { type Paging, resolvePaging } from '../query/paging.js';
import { statusFilter } from '../query/status.js';
import { compileTermFilter, matchesSearch, resolveOrder, resolveOrderBy, sortTerms, type TermListFilter } from '../query/terms.js';
import { type ListInputValue } from '../schemas/common.js';
import { type Filter, type Storage, type TermDoc } from '../storage/port.js';
import { type Caller, type CountAudience, countAudienceOf, eventUsableBy, isTokenHolder } from './access.js';
import { ParamErrors, termItems, toBool, toId, toList } from './input.js';
import { type TombstoneRecorder } from './tombstones.js';
import { insertWithUniqueSlug } from './unique-slug.js';

export type Taxonomy = 'categories' | 'tags';

export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  parent?: unknown;
}

export interface TermListParams {
  page?: number;
  per_page?: number;
  search?: string;
  exclude?: ListInputValue;
  include?: ListInputValue;
  order?: string;
  orderby?: string;
  hide_empty?: boolean | number | string;
  parent?: number | string;
  post?: number;
  event?: number;
  slug?: string;
}

export interface TermsServiceDeps {
  storage: Pick<Storage, 'events' | 'categories' | 'tags' | 'nextId'>;
  perPageMax: number;
  /** A deleted term leaves a tombstone. */
  tombstones: TombstoneRecorder;
  now?: () => Date;
}

/** A check of a term and its count before a write, throwing to refuse it (a request's `If-Match`). */
export type TermPrecondition = (current: { doc: TermDoc; count: number }) => void;

/** A term named in an event write: an existing id, or a name to create once the write is valid. */
export type TermRef = { id: number } | { name: string };

/** How long term counts may lag behind writes made by another process (design: counts are informational). */
const COUNTS_TTL_MS = 10_000;
const label: Record<Taxonomy, 'category' | 'tag'> = { categories: 'category', tags: 'tag' };
const eventField: Record<Taxonomy, 'categoryIds' | 'tagIds'> = { categories: 'categoryIds', tags: 'tagIds' };

/** A taxonomy's terms in storage: their names, look-ups and inserts, for the other parts of the service. */
function termStore(taxonomy: Taxonomy, storage: TermsServiceDeps['storage']) {
  const collection = storage[taxonomy];
  const kind = label[taxonomy];
  const hierarchical = taxonomy === 'categories';
  const nameIndex = hierarchical ? 'categories_parent_name_unique' : 'tags_name_unique';
  const slugIndex = `${taxonomy}_slug_unique`;

  async function find(id: number): Promise<TermDoc> {
    const doc = await collection.findById(id);
    if (!doc) throw new NotFoundError(kind, id);
    return doc;
  }

  const all = () => collection.find({ filter: {}, sort: [['_id', 1]] });

  /** A term by id, else by slug, else by name. */
  async function lookup(item: string | number): Promise<TermDoc | null> {
    const id = toId(item);
    if (id !== null) return collection.findById(id);
    const text = String(item).trim();
    return (await collection.findOne({ slug: text })) ?? (await collection.findOne({ nameKey: text.toLowerCase() }));
  }

  function termExists(existing: TermDoc | null): ApiError {
    const message = hierarchical ? 'errorMessage.term_exists.parent' : 'errorMessage.term_exists.taxonomy';
    return new ApiError(400, 'term_exists', message, existing ? { term_id: existing._id } : {});
  }

  async function findByName(name: string, parent: number): Promise<TermDoc | null> {
    return collection.findOne(hierarchical ? { nameKey: name.toLowerCase(), parent } : { nameKey: name.toLowerCase() });
  }

  /** Inserts with a unique slug (`-2`, `-3`…); a name clash is `term_exists`, race-free by index. */
  async function insert(fields: Omit<TermDoc, '_id' | 'slug'>, slugBase: string, reservedId?: number): Promise<TermDoc> {
    const id = reservedId ?? (await storage.nextId('terms'));
    const base = slugFrom(slugBase, `${kind}-${id}`);
    return insertWithUniqueSlug({
      base,
      id,
      slugIndex,
      insert: async (slug) => {
        const doc: TermDoc = { _id: id, ...fields, slug };
        try {
          await collection.insertOne(doc);
        } catch (err) {
          if (err instanceof DuplicateKeyError && err.index === nameIndex) throw termExists(await findByName(fields.name, fields.parent));
          throw err;
        }
        return doc;
      },
      exhausted: () => new Error(`Could not find a free slug for ${kind} "${base}"`),
    });
  }

  return { taxonomy, storage, collection, kind, hierarchical, nameIndex, slugIndex, find, all, lookup, termExists, findByName, insert };
}

type TermStore = ReturnType<typeof termStore>;

/** Whether a held term is hidden from an anonymous caller, by the public counts (see `hiddenFrom`). */
const hiddenBy = (term: TermDoc, publicCounts: ReadonlyMap<number, number>): boolean => term.held === true && (publicCounts.get(term._id) ?? 0) === 0;

/** The event counts of a taxonomy's terms. */
function termCounts({ taxonomy, storage }: TermStore, now: () => Date) {
  /**
   * Published events using each term (WordPress's published-post count), in one facet query per
   * audience (countAudienceOf): the public count leaves out the events a list would not show a
   * reader their terms of — protected events (listed redacted) and those hidden from listings —
   * so a count cannot reveal a protected event's categories. Memoised: this process drops the memos
   * on every event or term write (`invalidate`); writes made by other processes sharing a MongoDB
   * show within COUNTS_TTL_MS.
   */
  const memos = new Map<CountAudience, { at: number; counts: Promise<Map<number, number>> }>();
  function counts(audience: CountAudience = 'all'): Promise<Map<number, number>> {
    const at = Date.now();
    const memo = memos.get(audience);
    if (memo && at - memo.at < COUNTS_TTL_MS) return memo.counts;
    const published = statusFilter(['publish'], now());
    const filter: Filter = audience === 'all' ? published : { $and: [published, { password: null }, { hideFromListings: false }] };
    const pending = storage.events.countValues(eventField[taxonomy], filter).then((rows) => new Map(rows.map((r) => [r.value as number, r.count])));
    memos.set(audience, { at, counts: pending });
    // A failed count must not be served from the memo.
    pending.catch(() => {
      if (memos.get(audience)?.counts === pending) memos.delete(audience);
    });
    return pending;
  }
  const invalidate = (): void => {
    memos.clear();
  };

  /**
   * Whether `term` is hidden from `caller`: a held term (src/services/holds.ts) is, for anonymous
   * callers, while no public event uses it. Everywhere a term is named or shown treats it as absent.
   */
  async function hiddenFrom(term: TermDoc, caller: Caller | null): Promise<boolean> {
    return term.held === true && !isTokenHolder(caller) && hiddenBy(term, await counts('public'));
  }

  return { counts, invalidate, hiddenFrom };
}

/** Terms named by a request's parameters: lists of terms, a category's parent. */
function termParams({ kind, hierarchical, lookup, all }: TermStore, { hiddenFrom }: Pick<ReturnType<typeof termCounts>, 'hiddenFrom'>) {
  /** A term by id, slug or name, as `caller` may see it (null: none). */
  async function lookupFor(item: string | number, caller: Caller | null): Promise<TermDoc | null> {
    const term = await lookup(item);
    return term === null || (await hiddenFrom(term, caller)) ? null : term;
  }

  /** Every item must be an existing term (id, slug or name) `caller` may see, else a 400 naming `param`. */
  async function resolveList(value: ListInputValue, param: string, errors: ParamErrors, caller: Caller | null): Promise<number[] | undefined> {
    const items = toList(value, param);
    // The reference's `is_term_of_taxonomy` wants at least one term (`include=` is a 400, not "nothing").
    if (items.length === 0) {
      errors.add(param, `${param} must list at least one ${kind}.`);
      return undefined;
    }
    const ids: number[] = [];
    for (const item of items) {
      const term = await lookupFor(item, caller);
      if (!term) {
        errors.add(param, `${param} lists "${String(item)}", which is not an existing ${kind}.`);
        return undefined;
      }
      ids.push(term._id);
    }
    return ids;
  }

  async function resolveParent(value: unknown, id: number | null, errors: ParamErrors): Promise<number | undefined> {
    if (!hierarchical) {
      throw new ApiError(400, 'rest_taxonomy_not_hierarchical', 'errorMessage.rest_taxonomy_not_hierarchical', { params: { parent: 'Tags have no parent.' } });
    }
    if (value === 0 || value === '0') return 0;
    const parent = typeof value === 'number' || typeof value === 'string' ? await lookup(value) : null;
    if (!parent) {
      errors.add('parent', 'parent must be an existing category (id, slug or name), or 0.');
      return undefined;
    }
    if (id !== null && createsCycle(id, parent._id, await all())) {
      errors.add('parent', 'parent cannot be the category itself or one of its descendants.');
      return undefined;
    }
    return parent._id;
  }

  return { lookupFor, resolveList, resolveParent };
}

/** Creates, updates and deletes of terms. */
/** 409 duplicate_term_slug: another term owns `slug`. */
const duplicateTermSlug = (slug: string | undefined): ConflictError =>
  new ConflictError(
    'duplicate_term_slug',
    { key: 'errorMessage.duplicate_term_slug', values: { slug: String(slug) } },
    { params: { slug: 'slug is already in use.' } },
  );

function termWrites(
  { collection, kind, nameIndex, slugIndex, find, termExists, findByName, insert }: TermStore,
  { counts }: ReturnType<typeof termCounts>,
  { resolveParent }: ReturnType<typeof termParams>,
) {
  return {
    /**
     * `reservedId` (an Idempotency-Key's create, src/services/idempotency.ts): the id to create
     * under; a term already stored under it was stored by an earlier attempt of the same request,
     * and is the answer (its name would otherwise make the retry a term_exists).
     */
    async create(input: TermInput & { name: string }, reservedId?: number) {
      const earlier = reservedId === undefined ? null : await collection.findById(reservedId);
      if (earlier) return { doc: earlier, count: (await counts()).get(earlier._id) ?? 0 };
      const errors = new ParamErrors();
      const parent = input.parent === undefined ? 0 : await resolveParent(input.parent, null, errors);
      if (!errors.empty || parent === undefined) throw new InvalidParamsError(errors.params);
      const name = input.name.trim();
      if (name === '') throw new InvalidParamsError({ name: 'name must not be empty.' });
      const existing = await findByName(name, parent);
      if (existing) throw termExists(existing);
      try {
        const doc = await insert({ name, nameKey: name.toLowerCase(), description: input.description ?? '', parent }, input.slug ?? name, reservedId);
        return { doc, count: 0 };
      } catch (err) {
        // The earlier attempt's insert landed after the look-up above: this one then clashes with
        // it on the id or the name. Any other failure stands, even when the insert is visible (a
        // write that was not confirmed is no success).
        const clash = err instanceof DuplicateKeyError || (err instanceof ApiError && err.code === 'term_exists');
        const landed = reservedId !== undefined && clash ? await collection.findById(reservedId) : null;
        if (landed) return { doc: landed, count: 0 };
        throw err;
      }
    },

    /** `precondition`: a check of the term as an editor reads it, throwing to refuse the write. */
    async update(id: number, input: TermInput, precondition?: TermPrecondition) {
      const current = await find(id);
      precondition?.({ doc: current, count: (await counts('all')).get(id) ?? 0 });
      const errors = new ParamErrors();
      const set: Partial<TermDoc> = {};
      if (input.parent !== undefined) {
        const parent = await resolveParent(input.parent, id, errors);
        if (parent !== undefined) set.parent = parent;
      }
      if (input.name !== undefined) {
        if (input.name.trim() === '') errors.add('name', 'name must not be empty.');
        else Object.assign(set, { name: input.name.trim(), nameKey: input.name.trim().toLowerCase() });
      }
      if (input.description !== undefined) set.description = input.description;
      if (input.slug !== undefined) set.slug = slugFrom(input.slug, current.slug);
      if (!errors.empty) throw new InvalidParamsError(errors.params);

      const nameKey = set.nameKey ?? current.nameKey;
      const parent = set.parent ?? current.parent;
      if (set.nameKey !== undefined || set.parent !== undefined) {
        const clash = await findByName(nameKey, parent);
        if (clash && clash._id !== id) throw termExists(clash);
      }
      if (set.slug !== undefined && set.slug !== current.slug) {
        const owner = await collection.findOne({ slug: set.slug });
        if (owner && owner._id !== id) throw duplicateTermSlug(set.slug);
      }
      try {
        // An edit through the term's own route ends a hold (src/services/holds.ts).
        const updated = await collection.updateById(id, { $set: set, ...(current.held === true ? { $unset: ['held' as const] } : {}) });
        if (!updated) throw new NotFoundError(kind, id);
        return { doc: updated, count: (await counts()).get(id) ?? 0 };
      } catch (err) {
        if (err instanceof DuplicateKeyError && err.index === slugIndex) throw duplicateTermSlug(set.slug);
        if (err instanceof DuplicateKeyError && err.index === nameIndex) throw termExists(await findByName(nameKey, parent));
        throw err;
      }
    },
  };
}

/** Deleting a term for good. */
function termRemoval(
  { taxonomy, storage, collection, kind, hierarchical, find, all, findByName }: TermStore,
  { counts, invalidate }: ReturnType<typeof termCounts>,
  tombstones: TombstoneRecorder,
  now: () => Date,
) {
  return {
    /**
     * Permanent delete; returns the term as it was. A category's children move up to its parent,
     * and the term is removed from every event, whose modified time moves with it (an incremental
     * sync brings them again); the term leaves a tombstone.
     */
    async remove(id: number, precondition?: TermPrecondition) {
      const doc = await find(id);
      const count = (await counts()).get(id) ?? 0;
      precondition?.({ doc, count });
      const nodes = hierarchical ? await all() : [];
      const children = childrenOf(id, nodes).map((childId) => nodes.find((n) => n._id === childId) as TermDoc);
      // Children move up to the parent's level, where their names must be free (the deleted term's
      // own name aside): checked before anything is written, so a refused delete changes nothing.
      for (const child of children) {
        const clash = await findByName(child.nameKey, doc.parent);
        if (clash && clash._id !== id) {
          throw new ConflictError('term_exists', { key: 'errorMessage.term_exists.moveUp', values: { name: child.name } }, { term_id: clash._id });
        }
      }
      // The term goes first, so a child with its name can take its place.
      await collection.deleteById(id);
      for (const child of children) await collection.updateById(child._id, { $set: { parent: doc.parent } });
      await storage.events.updateMany({ [eventField[taxonomy]]: id }, { $pull: { [eventField[taxonomy]]: id }, $set: { modifiedUtc: now() } });
      await tombstones.recordChange(kind, id, null, 'none');
      invalidate();
      return { doc, count };
    },
  };
}

/** The list of a taxonomy's terms. */
function termList(
  { taxonomy, storage, collection, hierarchical }: TermStore,
  { counts }: ReturnType<typeof termCounts>,
  { lookupFor, resolveList }: ReturnType<typeof termParams>,
  perPageMax: number,
  now: () => Date,
) {
  return {
    async list(
      params: TermListParams,
      caller: Caller | null,
    ): Promise<{ items: Array<{ doc: TermDoc; count: number }>; total: number; paging: Paging; args: Array<[string, string]> }> {
      const errors = new ParamErrors();
      const filter: TermListFilter = {};
      if (params.include !== undefined) filter.include = await resolveList(params.include, 'include', errors, caller);
      if (params.exclude !== undefined) filter.exclude = await resolveList(params.exclude, 'exclude', errors, caller);
      if (params.parent !== undefined) {
        if (!hierarchical) errors.add('parent', 'Tags have no parent.');
        else if (params.parent === 0 || params.parent === '0') filter.parent = 0;
        else {
          const parent = await lookupFor(params.parent, caller);
          if (parent) filter.parent = parent._id;
          else errors.add('parent', 'parent must be an existing category (id, slug or name), or 0.');
        }
      }
      // `event` is an alias of `post` and wins when both are given.
      const eventId = params.event ?? params.post;
      if (eventId !== undefined) {
        const found = await storage.events.findById(eventId);
        // A protected event's terms are hidden from whoever cannot read it in full: naming it here
        // must not list them.
        const event = eventUsableBy(found, caller, now()) && (found!.password === null || caller?.role === 'editor') ? found : null;
        if (!event) errors.add(params.event !== undefined ? 'event' : 'post', 'The value must be the id of an existing event.');
        else filter.ofEvent = event[eventField[taxonomy]];
      }
      if (params.slug !== undefined) filter.slug = params.slug;
      if (!errors.empty) throw new InvalidParamsError(errors.params);

      const [candidates, termCounts] = await Promise.all([collection.find({ filter: compileTermFilter(filter) }), counts(countAudienceOf(caller))]);
      const hideEmpty = params.hide_empty === undefined ? true : toBool(params.hide_empty as never);
      // The counts of a caller without a token are the public ones (countAudienceOf): the rule of
      // `hiddenFrom` without another look-up per term.
      const hidden = (t: TermDoc) => !isTokenHolder(caller) && hiddenBy(t, termCounts);
      const matching = candidates.filter(
        (t) => !hidden(t) && (params.search === undefined || matchesSearch(t, params.search)) && (!hideEmpty || (termCounts.get(t._id) ?? 0) > 0),
      );
      const orderBy = resolveOrderBy(params.orderby);
      const sorted = sortTerms(matching, orderBy, resolveOrder(params.order), termCounts, filter.include);
      const paging = resolvePaging(params.page, params.per_page, perPageMax);
      const items = sorted.slice(paging.skip, paging.skip + paging.perPage).map((doc) => ({ doc, count: termCounts.get(doc._id) ?? 0 }));

      const args: Array<[string, string]> = [];
      for (const name of ['search', 'exclude', 'include', 'order', 'orderby', 'hide_empty', 'parent', 'post', 'event', 'slug'] as const) {
        const value = params[name];
        if (value !== undefined) args.push([name, Array.isArray(value) ? value.join(',') : String(value)]);
      }
      return { items, total: matching.length, paging, args };
    },
  };
}

/** Terms named in event writes, and categories expanded to their descendants for the event list. */
function termEventRefs({ taxonomy, kind, hierarchical, all, lookup, findByName, insert }: TermStore) {
  return {
    /** Event writes name terms by id, slug or name; unknown names are created later. */
    async resolveForEvent(value: ListInputValue, errors: ParamErrors): Promise<TermRef[] | undefined> {
      const refs: TermRef[] = [];
      for (const item of termItems(value, taxonomy)) {
        const term = await lookup(item);
        if (term) refs.push({ id: term._id });
        // A number is an id, never a name to create: `0` and `"0"` included.
        else if (typeof item === 'number' || /^\d+$/.test(item.trim())) {
          errors.add(taxonomy, `${taxonomy} lists id ${String(item)}, which is not an existing ${kind}.`);
          return undefined;
        } else refs.push({ name: String(item).trim() });
      }
      return refs;
    },

    /**
     * Creates the named terms of a valid event write; a concurrent creation of the same name is
     * reused. `held`: the event is not public, so new terms are held (src/services/holds.ts).
     */
    async commitRefs(refs: TermRef[], held = false): Promise<number[]> {
      const ids: number[] = [];
      for (const ref of refs) {
        let id: number;
        if ('id' in ref) id = ref.id;
        else {
          const existing = await findByName(ref.name, 0);
          if (existing) id = existing._id;
          else {
            try {
              const fields = { name: ref.name, nameKey: ref.name.toLowerCase(), description: '', parent: 0, ...(held ? { held } : {}) };
              id = (await insert(fields, ref.name))._id;
            } catch (err) {
              const raced = err instanceof ApiError && err.code === 'term_exists' ? await findByName(ref.name, 0) : null;
              if (!raced) throw err;
              id = raced._id;
            }
          }
        }
        if (!ids.includes(id)) ids.push(id);
      }
      return ids;
    },

    /** The ids of the given categories and all their descendants (the event list's filter). */
    async expandWithDescendants(ids: number[]): Promise<number[]> {
      return hierarchical ? withDescendants(ids, await all()) : ids;
    },
  };
}

export function createTermsService(taxonomy: Taxonomy, { storage, perPageMax, tombstones, now = () => new Date() }: TermsServiceDeps) {
  const store = termStore(taxonomy, storage);
  const counting = termCounts(store, now);
  const { counts, invalidate, hiddenFrom } = counting;
  const params = termParams(store, counting);
  const { find } = store;

  return {
    taxonomy,
    counts,
    invalidate,
    resolveList: params.resolveList,

    async get(id: number, caller: Caller | null) {
      const doc = await find(id);
      if (await hiddenFrom(doc, caller)) throw new NotFoundError(store.kind, id);
      return { doc, count: (await counts(countAudienceOf(caller))).get(id) ?? 0 };
    },

    ...termWrites(store, counting, params),
    ...termRemoval(store, counting, tombstones, now),
    ...termList(store, counting, params, perPageMax, now),
    ...termEventRefs(store),
  };
}

export type TermsService = ReturnType<typeof createTermsService>;
