/**
 * Pruning: the stored records of the resources the run has files for, whose slugs the files do not
 * hold and no file record references. Events, venues and organizers go to the trash through the
 * services (as an API DELETE does; reversible), a series with its occurrences (as a DELETE of scope
 * `all` does; occurrences are never records of the files); categories and tags are deleted. Unless removing,
 * they are only counted and listed.
 */
import { isClientError } from '../errors.js';
import { type EventDoc, type Filter, type Storage, type TermDoc } from '../storage/port.js';
import { LOOKUP_CHUNK } from './memory.js';
import { type PruneList } from './report.js';
import { CALLER } from './state.js';
import { type Resource } from './schemas.js';
import { type RunState } from './state.js';

/** Slugs listed per resource at most (the count says how many there are). */
const PRUNE_SAMPLE = 20;

/** What is (with `remove`: was) to be removed, per resource the run has files for. */
export async function prune(run: RunState, remove: boolean): Promise<Partial<Record<Resource, PruneList>>> {
  const result: Partial<Record<Resource, PruneList>> = {};
  run.done = 0;
  // Events first, so venues, organizers and terms are unlinked from live events only when needed.
  for (const resource of ['events', 'organizers', 'venues', 'tags', 'categories'] as const) {
    if (run.sourcesOf(resource).length === 0) continue;
    const list: PruneList = { count: 0, slugs: [] };
    result[resource] = list;
    const keep =
      resource === 'events'
        ? (slug: string) => run.eventSlugs.has(slug) || run.referencedStoredEvents.has(slug)
        : (slug: string) => run.fileSlugs[resource].has(slug) || run.referencedStored[resource].has(slug);
    const candidates: Array<{ _id: number; slug: string; parent?: number }> = [];
    await eachStored(run.storage, resource, async (doc) => {
      // An occurrence is its series' (kept or removed with it below), never a record of the files.
      if (keep(doc.slug) || (doc as { seriesId?: number }).seriesId !== undefined) return;
      list.count++;
      if (list.slugs.length < PRUNE_SAMPLE) list.slugs.push(doc.slug);
      if (!remove) return;
      // Terms are removed once all are known (children first); posts at once.
      if (resource === 'categories' || resource === 'tags') candidates.push(doc);
      else await removePost(run, resource, doc as never);
    });
    if (remove && candidates.length > 0) await removeTerms(run, resource as 'categories' | 'tags', candidates as TermDoc[]);
    if (resource === 'events') await pruneSeries(run, list, remove);
  }
  return result;
}

/** Series (stored, not in the trash) whose slugs the event files do not hold: listed with the events, trashed whole. */
async function pruneSeries(run: RunState, list: PruneList, remove: boolean): Promise<void> {
  await eachStored(run.storage, 'series', async (doc) => {
    if (run.eventSlugs.has(doc.slug)) return;
    list.count++;
    if (list.slugs.length < PRUNE_SAMPLE) list.slugs.push(doc.slug);
    if (!remove) return;
    // A delete of scope `all` is made through one of the series' occurrences, as the API takes it.
    const [occurrence] = await run.storage.events.find({ filter: { seriesId: doc._id, status: { $ne: 'trash' } }, limit: 1 });
    if (occurrence === undefined) {
      run.counts.events.failed++;
      run.reporter.info(`events "${doc.slug}" (a series) was not removed: it has no occurrence left to delete it through; delete it through the API.`);
    } else {
      await run.events.trash({ id: occurrence._id }, CALLER, undefined, 'all');
      run.counts.events.removed++;
    }
    run.tick('pruning', null);
  });
}

/** Every stored record of a resource that is not in the trash, a page at a time by id. */
async function eachStored(
  storage: Storage,
  resource: Resource | 'series',
  visit: (doc: { _id: number; slug: string; status?: string }) => Promise<void>,
): Promise<void> {
  const collection = storage[resource] as Storage['events'];
  const posts = resource === 'events' || resource === 'venues' || resource === 'organizers' || resource === 'series';
  let last = 0;
  for (;;) {
    const filter: Filter = posts ? { $and: [{ _id: { $gt: last } }, { status: { $ne: 'trash' } }] } : { _id: { $gt: last } };
    const page = await collection.find({ filter, sort: [['_id', 1]], limit: LOOKUP_CHUNK });
    for (const doc of page) await visit(doc);
    if (page.length < LOOKUP_CHUNK) return;
    last = (page[page.length - 1] as { _id: number })._id;
  }
}

async function removePost(run: RunState, resource: 'events' | 'venues' | 'organizers', doc: EventDoc & { _id: number }): Promise<void> {
  if (resource === 'events') await run.events.trashDoc(doc);
  else await (resource === 'venues' ? run.venues : run.organizers).trash({ id: doc._id });
  run.counts[resource].removed++;
  run.tick('pruning', null);
}

/** Deletes terms for good; categories deepest first, so no child moves up only to be deleted. */
async function removeTerms(run: RunState, taxonomy: 'categories' | 'tags', terms: TermDoc[]): Promise<void> {
  const all = taxonomy === 'categories' ? new Map((await run.storage.categories.find({ filter: {} })).map((t) => [t._id, t])) : new Map<number, TermDoc>();
  const depth = (t: TermDoc): number => {
    let d = 0;
    for (let p = t.parent, guard = 0; p !== 0 && guard < 1000; p = all.get(p)?.parent ?? 0, guard++) d++;
    return d;
  };
  const ordered = [...terms].sort((a, b) => depth(b) - depth(a));
  for (const term of ordered) {
    try {
      await run.terms[taxonomy].remove(term._id);
      run.counts[taxonomy].removed++;
    } catch (error) {
      if (!isClientError(error)) throw error;
      run.counts[taxonomy].failed++;
      run.reporter.info(`${taxonomy} "${term.slug}" was not removed: ${error.message}`);
    }
    run.tick('pruning', null);
  }
}
