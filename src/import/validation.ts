/**
 * The validation pass: every record of the files is checked before anything is written — its own
 * checks (checks.ts: schema, slug, dates, values), unique slugs and term names, the services' checks
 * of venues and organizers, and references, which must name a record of the files or of the store.
 * Streamed event files are checked a batch at a time (one storage lookup per batch), and their valid
 * records are kept for the write pass up to the run's limit.
 */
import { InvalidParamsError } from '../errors.js';
import { ParamErrors } from '../services/input.js';
import { type TermDoc } from '../storage/port.js';
import { checkSeedEvent, publicationDateErrors, recordIdentity, slugToReport } from './checks.js';
import { LOOKUP_CHUNK } from './memory.js';
import { SeedError } from './report.js';
import { type FieldError, fieldErrors, type SeedCategory, type SeedEvent, type SeedRecordTypes, type SeedVenue, seedValidator } from './schemas.js';
import { formatPosition, readSource, readSourceSteps, type RecordPosition, type SeedSource, SourceError } from './sources.js';
import { checkSeriesRecords } from './series.js';
import { eachRef, type Entry, fieldOf, type KeptEvent, type RunState, SMALL, type SmallResource } from './state.js';

export async function validate(run: RunState): Promise<void> {
  run.done = 0;
  for (const resource of SMALL) await validateSmall(run, resource);
  await checkSmallReferences(run);
  for (const source of run.sourcesOf('events')) await validateEvents(run, source);
}

async function validateSmall<R extends SmallResource>(run: RunState, resource: R): Promise<void> {
  const validator = seedValidator(resource);
  const slugs = run.fileSlugs[resource];
  for (const source of run.sourcesOf(resource)) {
    try {
      for await (const item of readSource(source)) {
        run.tick('validating', null);
        if ('errors' in item) {
          run.invalid(resource, item, item.errors);
          continue;
        }
        const errors = validator(item.record);
        if (errors.length > 0) {
          run.invalid(resource, item, errors, slugToReport(resource, item.record));
          continue;
        }
        const record = item.record as SeedRecordTypes[R];
        const name = 'name' in record ? record.name : 'venue' in record ? record.venue : 'organizer' in record ? record.organizer : '';
        const slug = recordIdentity(record, name, errors);
        const first = slugs.get(slug);
        if (first !== undefined) errors.push({ field: 'slug', message: `slug "${slug}" is already used by ${formatPosition(first)}.` });
        if (resource === 'venues' || resource === 'organizers') publicationDateErrors(record as SeedVenue, run.siteTimezone, run.now, errors);
        if (errors.length > 0) {
          run.invalid(resource, item, errors, slug);
          continue;
        }
        slugs.set(slug, item);
        (run.entries[resource] as Array<Entry<R>>).push({ position: item, slug, record });
      }
    } catch (error) {
      if (error instanceof SourceError) throw new SeedError(error.message);
      throw error;
    }
  }
}

/** Category parents, term names, and the services' checks of venues and organizers. */
async function checkSmallReferences(run: RunState): Promise<void> {
  await checkCategories(run);
  await checkTermNames(run, 'tags');
  for (const resource of ['venues', 'organizers'] as const) {
    const service = resource === 'venues' ? run.venues : run.organizers;
    const stored = await run.storedBySlug(
      resource,
      run.entries[resource].map((e) => e.slug),
    );
    for (const entry of run.entries[resource]) {
      const { slug: _slug, ...body } = entry.record;
      const errors = new ParamErrors();
      service.prepare(body as never, (stored.get(entry.slug) ?? null) as never, errors);
      if (!errors.empty) run.invalid(resource, entry.position, fieldErrors(new InvalidParamsError(errors.params)), entry.slug);
    }
  }
}

async function checkCategories(run: RunState): Promise<void> {
  const entries = run.entries.categories;
  const inFiles = run.fileSlugs.categories;
  const parents = entries.map((e) => e.record.parent).filter((p): p is string => p !== undefined && p !== '' && !inFiles.has(p));
  await run.ids.categories.prefetch(parents);
  for (const entry of entries) {
    const parent = entry.record.parent;
    if (parent === undefined || parent === '' || inFiles.has(parent)) continue;
    if (typeof run.ids.categories.get(parent) === 'number') run.referencedStored.categories.add(parent);
    else run.invalid('categories', entry.position, [{ field: 'parent', message: `parent "${parent}" is neither in the seed files nor stored.` }], entry.slug);
  }
  // A category cannot be its own ancestor.
  const parentOf = new Map(entries.map((e) => [e.slug, e.record.parent]));
  for (const entry of entries) {
    const seen = new Set([entry.slug]);
    for (let p = parentOf.get(entry.slug); p !== undefined && p !== ''; p = parentOf.get(p)) {
      if (seen.has(p)) {
        run.invalid(
          'categories',
          entry.position,
          [{ field: 'parent', message: `parent "${entry.record.parent}" makes a cycle (${[...seen].join(' → ')} → ${p}).` }],
          entry.slug,
        );
        break;
      }
      seen.add(p);
    }
  }
  await checkTermNames(run, 'categories');
}

/**
 * Term names are unique (per parent for categories): two file records, or a file record and a
 * stored term the files do not hold, may not share one — the write would be refused (`term_exists`).
 */
async function checkTermNames(run: RunState, taxonomy: 'categories' | 'tags'): Promise<void> {
  const entries = run.entries[taxonomy] as Array<Entry<'categories'> | Entry<'tags'>>;
  if (entries.length === 0) return;
  const parentKey = (e: Entry<'categories'> | Entry<'tags'>) => (taxonomy === 'categories' ? ((e.record as SeedCategory).parent ?? '') : '');
  const byName = new Map<string, Entry<'categories'> | Entry<'tags'>>();
  for (const entry of entries) {
    const key = `${parentKey(entry)}\u0000${entry.record.name.trim().toLowerCase()}`;
    const first = byName.get(key);
    if (first) {
      run.invalid(
        taxonomy,
        entry.position,
        [
          {
            field: 'name',
            message: `name "${entry.record.name}" is already used by ${formatPosition(first.position)}${taxonomy === 'categories' ? ' under the same parent' : ''}.`,
          },
        ],
        entry.slug,
      );
    } else byName.set(key, entry);
  }
  const stored: TermDoc[] = [];
  const keys = [...new Set(entries.map((e) => e.record.name.trim().toLowerCase()))];
  for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
    stored.push(...(await run.storage[taxonomy].find({ filter: { nameKey: { $in: keys.slice(i, i + LOOKUP_CHUNK) } } })));
  }
  const inFiles = run.fileSlugs[taxonomy];
  const storedParentSlug = new Map<number, string>();
  if (taxonomy === 'categories') {
    const parentIds = [...new Set(stored.map((t) => t.parent).filter((p) => p !== 0))];
    if (parentIds.length > 0) for (const t of await run.storage.categories.find({ filter: { _id: { $in: parentIds } } })) storedParentSlug.set(t._id, t.slug);
  }
  for (const term of stored) {
    if (inFiles.has(term.slug)) continue;
    const parent = term.parent === 0 ? '' : storedParentSlug.get(term.parent);
    const clash = byName.get(`${parent}\u0000${term.nameKey}`);
    if (clash && clash.slug !== term.slug) {
      run.invalid(
        taxonomy,
        clash.position,
        [
          {
            field: 'name',
            message: `name "${clash.record.name}" is already used by the stored ${taxonomy === 'tags' ? 'tag' : 'category'} "${term.slug}"${taxonomy === 'categories' ? ' under the same parent' : ''}.`,
          },
        ],
        clash.slug,
      );
    }
  }
}

/** An event record waiting for its batch's reference check. */
interface Pending {
  position: RecordPosition;
  record: SeedEvent;
  slug: string;
  /** Its series parent is an earlier event of the files. */
  parentSeen: boolean;
}

async function validateEvents(run: RunState, source: SeedSource): Promise<void> {
  let batch: Pending[] = [];
  try {
    for await (const step of readSourceSteps(source)) {
      for (const item of step) {
        run.tick('validating', null);
        if ('errors' in item) {
          run.invalid('events', item, item.errors);
          continue;
        }
        const errors: FieldError[] = [];
        const checked = checkSeedEvent(item.record, run.checkContext, errors);
        if (checked && !run.eventSlugs.add(checked.slug)) errors.push({ field: 'slug', message: `slug "${checked.slug}" is used by an earlier event record.` });
        if (checked === null || errors.length > 0) {
          run.invalid('events', item, errors, checked?.slug ?? slugToReport('events', item.record));
          continue;
        }
        const parent = checked.record.post_parent;
        const parentSeen = parent !== undefined && parent !== '' && run.eventSlugs.has(parent);
        if (parentSeen && run.seriesSlugs.has(parent)) {
          const message = `post_parent names "${parent}", a recurring event: its occurrences are its only children.`;
          run.invalid('events', item, [{ field: 'post_parent', message }], checked.slug);
          continue;
        }
        if (checked.record.recurrence !== undefined) run.seriesSlugs.add(checked.slug);
        keep(run, source, { position: item, record: checked.record, dates: checked.dates });
        if (parentSeen) run.parentsInFiles.add(parent);
        batch.push({ position: item, record: checked.record, slug: checked.slug, parentSeen });
        if (batch.length >= run.batchSize) {
          await checkEventReferences(run, batch);
          batch = [];
        }
      }
    }
    await checkEventReferences(run, batch);
  } catch (error) {
    if (error instanceof SourceError) throw new SeedError(error.message);
    throw error;
  }
}

/**
 * The references of a batch of event records: each must name a record of the files or a stored one
 * (looked up for the whole batch at once). A valid record is counted; an invalid one reported.
 */
async function checkEventReferences(run: RunState, batch: readonly Pending[]): Promise<void> {
  const refs = { venues: new Set<string>(), organizers: new Set<string>(), categories: new Set<string>(), tags: new Set<string>() };
  const parents = new Set<string>();
  // Only a record naming something outside the files needs storage (and a second look): the
  // others are counted at once.
  const outside: Pending[] = [];
  let named: boolean;
  // Visitors made once a batch, not once a record.
  const collect = (resource: SmallResource, s: string): void => {
    if (run.fileSlugs[resource].has(s)) return;
    refs[resource].add(s);
    named = true;
  };
  let errors: FieldError[] = [];
  const resolve = (resource: SmallResource, s: string): void => {
    if (run.fileSlugs[resource].has(s)) return;
    if (typeof run.ids[resource].get(s) === 'number') run.referencedStored[resource].add(s);
    else errors.push({ field: fieldOf[resource], message: `${fieldOf[resource]} names "${s}", which is neither in the seed files nor stored.` });
  };
  // Series records: their rules, checked against the stored series' anchors (series.ts).
  const invalidSeries = await checkSeriesRecords(
    run,
    batch.filter((pending) => pending.record.recurrence !== undefined),
  );
  for (const pending of batch) {
    named = false;
    eachRef(pending.record, collect);
    if (pending.record.post_parent && !pending.parentSeen) {
      parents.add(pending.record.post_parent);
      named = true;
    }
    if (named) outside.push(pending);
    else if (!invalidSeries.has(pending)) run.eventRecords++;
  }
  if (outside.length === 0) return;
  await Promise.all([...SMALL.map((r) => run.ids[r].prefetch(refs[r])), run.ids.events.prefetch(parents)]);
  for (const pending of outside) {
    const { position, record, slug, parentSeen } = pending;
    if (errors.length > 0) errors = [];
    eachRef(record, resolve);
    if (record.post_parent && !parentSeen) {
      if (typeof run.ids.events.get(record.post_parent) === 'number') run.referencedStoredEvents.add(record.post_parent);
      else
        errors.push({
          field: 'post_parent',
          message: `post_parent names "${record.post_parent}", which is neither stored nor an event before this one in the files.`,
        });
    }
    if (errors.length > 0) run.invalid('events', position, errors, slug);
    else if (!invalidSeries.has(pending)) run.eventRecords++;
  }
}

/**
 * Keeps a valid event record for the write pass, which then need not read and parse the file again,
 * up to `keptEventsLimit` per run; a file past that is read again (memory stays bounded).
 */
function keep(run: RunState, source: SeedSource, event: KeptEvent): void {
  let kept = run.keptEvents.get(source);
  if (kept === undefined) run.keptEvents.set(source, (kept = []));
  if (kept === null) return;
  if (run.keptCount >= run.keptEventsLimit) {
    run.keptCount -= kept.length;
    run.keptEvents.set(source, null);
    return;
  }
  kept.push(event);
  run.keptCount += 1;
}
