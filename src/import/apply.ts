/**
 * The write pass: valid records upserted by slug through the services, in dependency order —
 * categories (parents first), tags, venues, organizers, then events, a batch at a time (the records
 * validation kept, or the file read again when there were too many to keep). A stored record is
 * rewritten only when a field would change; a dry run compares and writes nothing. Records with
 * `recurrence` are series, written by series.ts. A write the
 * services refuse fails its record alone; any other error stops the run.
 */
import { ApiError } from '../errors.js';
import { slugFrom } from '../lib/slug.js';
import { type EventDoc, type TermDoc } from '../storage/port.js';
import { categoryFields, eventBody, linkedPostBody, termCreateBody, type TermFields, termPatch } from './mapping.js';
import { forEachLimit } from './memory.js';
import { SeedError } from './report.js';
import { type SeedEvent } from './schemas.js';
import { writeSeriesRecords } from './series.js';
import { formatPosition, readSourceSteps, type SeedSource, unchangedSince } from './sources.js';
import {
  CALLER,
  eachRef,
  type Entry,
  type KeptEvent,
  type PreparedEvent,
  type RunState,
  SMALL,
  type SmallResource,
  stopAt,
  type WriteResult,
} from './state.js';

export async function apply(run: RunState): Promise<void> {
  run.done = 0;
  await applyCategories(run);
  await applyTags(run);
  await applyLinkedPosts(run, 'venues');
  await applyLinkedPosts(run, 'organizers');
  for (const source of run.sourcesOf('events')) await applyEvents(run, source);
}

/** Categories one by one, parents first. */
async function applyCategories(run: RunState): Promise<void> {
  const entries = run.entries.categories;
  const bySlug = new Map(entries.map((e) => [e.slug, e]));
  const ordered: Array<Entry<'categories'>> = [];
  const placed = new Set<string>();
  const place = (entry: Entry<'categories'>): void => {
    if (placed.has(entry.slug)) return;
    placed.add(entry.slug);
    const parent = entry.record.parent ? bySlug.get(entry.record.parent) : undefined;
    if (parent) place(parent);
    ordered.push(entry);
  };
  entries.forEach(place);
  const stored = await run.storedBySlug(
    'categories',
    entries.map((e) => e.slug),
  );
  for (const entry of ordered) {
    const fields = categoryFields(run, entry.record);
    await run.attempt('categories', entry.position, entry.slug, () => upsertTerm(run, 'categories', entry.slug, stored.get(entry.slug), fields));
  }
}

async function applyTags(run: RunState): Promise<void> {
  const stored = await run.storedBySlug(
    'tags',
    run.entries.tags.map((e) => e.slug),
  );
  await forEachLimit(run.entries.tags, run.concurrency, (entry) =>
    run.attempt('tags', entry.position, entry.slug, () =>
      upsertTerm(run, 'tags', entry.slug, stored.get(entry.slug), { name: entry.record.name, description: entry.record.description, parentId: undefined }),
    ),
  );
}

async function upsertTerm(
  run: RunState,
  taxonomy: 'categories' | 'tags',
  slug: string,
  current: TermDoc | undefined,
  fields: TermFields,
): Promise<WriteResult> {
  const service = run.terms[taxonomy];
  if (current) {
    run.ids[taxonomy].defined.set(slug, current._id);
    const patch = termPatch(current, fields);
    if (Object.keys(patch).length === 0) return 'unchanged';
    if (!run.dryRun) await service.update(current._id, patch);
    return 'updated';
  }
  if (run.dryRun) {
    run.ids[taxonomy].defined.set(slug, run.nextPlaceholder());
    return 'created';
  }
  const { doc } = await service.create(termCreateBody(slug, fields));
  run.ids[taxonomy].defined.set(slug, doc._id);
  return 'created';
}

async function applyLinkedPosts(run: RunState, resource: 'venues' | 'organizers'): Promise<void> {
  const service = resource === 'venues' ? run.venues : run.organizers;
  const entries = run.entries[resource] as Array<Entry<'venues'> | Entry<'organizers'>>;
  const stored = await run.storedBySlug(
    resource,
    entries.map((e) => e.slug),
  );
  await forEachLimit(entries, run.concurrency, (entry) =>
    run.attempt(resource, entry.position, entry.slug, async () => {
      const current = stored.get(entry.slug);
      const body = linkedPostBody(entry.record, current);
      if (current) {
        run.ids[resource].defined.set(entry.slug, current._id);
        if (Object.keys(service.changes(current as never, body)).length === 0) return 'unchanged';
        if (!run.dryRun) await service.update({ id: current._id }, body);
        return 'updated';
      }
      if (run.dryRun) {
        run.ids[resource].defined.set(entry.slug, run.nextPlaceholder());
        return 'created';
      }
      const doc = await service.createWithSlug(body, CALLER, entry.slug);
      run.ids[resource].defined.set(entry.slug, doc._id);
      return 'created';
    }),
  );
}

/**
 * Events a batch at a time: one slug lookup and one reference prefetch per batch, then the batch in
 * layers — an event whose series parent (`post_parent`) is in the same batch goes one layer after
 * its parent, which is written (and its id known) first. Each layer's new events are one insertMany.
 * (Flushing the batch at every in-batch parent instead made a file of ten-event series into
 * ten-event writes: 100 times the lookups, and one commit per ten events on a durable store.)
 */
async function applyEvents(run: RunState, source: SeedSource): Promise<void> {
  let batch: Array<PreparedEvent & { layer: number }> = [];
  /** Layer of each event of the batch, by slug. */
  let layers = new Map<string, number>();
  let deepest = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    await writeBatch(run, batch, layers, deepest);
    batch = [];
    layers = new Map();
    deepest = 0;
  };
  /** Adds an event to the batch; true when the batch is full. */
  const add = ({ position, record, dates }: KeptEvent): boolean => {
    const slug = record.slug ?? slugFrom(record.title, '');
    const parentLayer = record.post_parent ? layers.get(record.post_parent) : undefined;
    const layer = parentLayer === undefined ? 0 : parentLayer + 1;
    batch.push({ position, slug, record, dates, layer });
    layers.set(slug, layer);
    if (layer > deepest) deepest = layer;
    return batch.length >= run.batchSize;
  };
  const kept = run.keptEvents.get(source);
  // Kept records are walked synchronously, read ones a chunk at a time: a `for await` step per record
  // costs a microtask turn and promises each.
  if (kept) {
    for (const event of kept) if (add(event)) await flush();
  } else {
    for await (const step of rereadEvents(source)) for (const event of step) if (add(event)) await flush();
  }
  await flush();
}

/** One batch: its stored events and references looked up, then its layers written in order. */
async function writeBatch(
  run: RunState,
  batch: ReadonlyArray<PreparedEvent & { layer: number }>,
  layers: ReadonlyMap<string, number>,
  deepest: number,
): Promise<void> {
  const existing = new Map<string, EventDoc>();
  const singles = batch.filter((p) => p.record.recurrence === undefined);
  for (const doc of await run.storage.events.find({ filter: { slug: { $in: singles.map((p) => p.slug) } } })) existing.set(doc.slug, doc);
  const refs = { venues: new Set<string>(), organizers: new Set<string>(), categories: new Set<string>(), tags: new Set<string>() };
  const parents = new Set<string>();
  const collect = (resource: SmallResource, s: string): void => void refs[resource].add(s);
  for (const { record } of batch) {
    eachRef(record, collect);
    // A parent of this batch gets its id when its layer is written, not from storage.
    if (record.post_parent && !layers.has(record.post_parent)) parents.add(record.post_parent);
  }
  await Promise.all([...SMALL.map((r) => run.ids[r].prefetch(refs[r])), run.ids.events.prefetch(parents)]);
  // Series are no event's parent (validation): written first, apart from the layers.
  if (singles.length < batch.length)
    await writeSeriesRecords(
      run,
      batch.filter((p) => p.record.recurrence !== undefined),
    );
  const byLayer: PreparedEvent[][] = Array.from({ length: deepest + 1 }, () => []);
  for (const prepared of singles) byLayer[prepared.layer]!.push(prepared);
  for (const layer of byLayer) {
    // New events are created together (one insertMany); stored ones are compared one by one.
    const creates = run.dryRun ? [] : layer.filter((prepared) => !existing.has(prepared.slug));
    const others = creates.length === 0 ? layer : layer.filter((prepared) => existing.has(prepared.slug));
    await forEachLimit(others, run.concurrency, (prepared) =>
      run.attempt('events', prepared.position, prepared.slug, () => upsertEvent(run, prepared, existing.get(prepared.slug) ?? null)),
    );
    await createEvents(run, creates);
  }
}

/** Creates events none of which is stored yet, with one bulk write; a refused record fails alone. */
async function createEvents(run: RunState, batch: readonly PreparedEvent[]): Promise<void> {
  if (batch.length === 0) return;
  const bodies = batch.map(({ position, record, slug, dates }) => {
    try {
      return eventBody(run, record, slug, null, dates).body;
    } catch (error) {
      throw stopAt(position, error);
    }
  });
  let results: Array<EventDoc | ApiError>;
  try {
    results = await run.events.createDocs(bodies, CALLER);
  } catch (error) {
    throw stopAt(batch[0]!.position, error);
  }
  results.forEach((result, k) => {
    const { position, slug } = batch[k]!;
    if (result instanceof ApiError) run.failed('events', position, result, slug);
    else {
      run.counts.events.created++;
      // Kept for the occurrences that name it (the next layer of this batch needs it at once); any
      // other id is looked up if ever needed, rather than crowding the cache during a large load.
      if (run.parentsInFiles.has(slug)) run.ids.events.remember(slug, result._id);
    }
    run.tick('loading', run.total);
  });
}

/** The event records of a file too large to keep between the passes, read again (a chunk's worth at a time). */
async function* rereadEvents(source: SeedSource): AsyncGenerator<KeptEvent[]> {
  if (!(await unchangedSince(source))) throw new SeedError(`${source.display} changed while it was being loaded; run again.`);
  for await (const step of readSourceSteps(source)) {
    yield step.map((item) => {
      // Validated in pass 1 (and the file's size and time are unchanged): a record unreadable now
      // means the file changed in between.
      if ('errors' in item || typeof item.record !== 'object' || item.record === null)
        throw new SeedError(`${formatPosition(item)} changed while the file was being loaded; run again.`);
      return { position: item, record: item.record as SeedEvent };
    });
  }
}

/** A stored event compared and updated, or (dry run) one that would be created; real creates go through `createEvents`. */
async function upsertEvent(run: RunState, { record, slug }: PreparedEvent, current: EventDoc | null): Promise<WriteResult> {
  const { body, placeholders } = eventBody(run, record, slug, current);
  if (current) {
    if (run.parentsInFiles.has(slug)) run.ids.events.remember(slug, current._id);
    // A dry run cannot compare links to records it would only create: those change for sure.
    if (placeholders) return 'updated';
    if (Object.keys(await run.events.changes(current, body, CALLER)).length === 0) return 'unchanged';
    if (!run.dryRun) await run.events.updateDoc(current, body, CALLER);
    return 'updated';
  }
  if (!run.dryRun) throw new Error(`event "${slug}" is new: it is created with its batch, not here`);
  run.ids.events.remember(slug, run.nextPlaceholder());
  return 'created';
}
