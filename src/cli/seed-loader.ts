/**
 * The seed loader: validates every record of the seed files, then upserts
 * them by slug through the services the API uses, in dependency order (categories, tags, venues,
 * organizers, events), and optionally removes what the files no longer hold.
 *
 * Rules (documented in the README, "Loading data"):
 * - Nothing is written unless every record is valid: the API's schemas (seed-schemas.ts), the
 *   services' own value checks (dates, time zones, costs, URLs), unique slugs, and references that
 *   name a record of the files or of the store. Every problem is reported with file, index and field.
 * - Identity is the slug, per resource: a record whose slug is stored updates that record, otherwise
 *   it is created with that slug. A record without `slug` takes the one its name/title makes.
 * - Updates are partial, like the API's: a field the record leaves out keeps its stored
 *   value. A stored record in the trash comes back (status `publish`) unless the record names a status.
 * - Change detection: a record is rewritten only when a stored field would change, so a second run
 *   writes nothing and reports every record unchanged.
 * - Relative dates (`+3 days 19:30`) count from the event's publication date: the record's `date` /
 *   `date_utc` if it gives one (it must be absolute), else the moment the event was first loaded
 *   (which becomes its publication date). Loaded into an empty store the calendar is upcoming; loaded
 *   again later, the same records mean the same instants, so nothing changes.
 * - `--prune` removes the records of the resources the run has files for whose slugs the files do not
 *   hold (and no file record references): events, venues and organizers go to the trash through the
 *   services (as an API DELETE does; reversible), categories and tags are deleted. Without `--yes` it
 *   only lists them.
 * - Streamed files (JSON Lines, CSV) are validated in batches; the write pass takes the records the
 *   validation pass kept (up to 100,000 events a run) and reads larger files again. What else is kept
 *   between records is bounded: event slugs as 64-bit fingerprints (16 bytes each), and a
 *   least-recently-used slug→id cache backed by storage lookups.
 */
import { type Config } from '../config.js';
import { ApiError, InvalidParamsError, isClientError } from '../errors.js';
import { slugFrom } from '../lib/slug.js';
import { type Caller } from '../services/access.js';
import { type EventsService } from '../services/events.js';
import { createServices } from '../services/index.js';
import { ParamErrors } from '../services/input.js';
import { type OrganizersService } from '../services/organizers.js';
import { type TermsService } from '../services/terms.js';
import { type VenuesService } from '../services/venues.js';
import { type EventCreate } from '../schemas/events.js';
import { type EventDoc, type Filter, type Storage, type TermDoc } from '../storage/port.js';
import { checkSeedEvent, type EventDates, publicationDateErrors, type RecordCheckContext, recordIdentity, slugToReport } from '../import/checks.js';
import { resolveSeedDate, toTimestamp } from '../import/dates.js';
import { forEachLimit, LruCache, SlugFingerprints } from '../import/memory.js';
import {
  type FieldError,
  RESOURCES,
  type Resource,
  type SeedCategory,
  type SeedEvent,
  type SeedOrganizer,
  type SeedRecordTypes,
  type SeedTag,
  type SeedVenue,
  fieldErrors,
  seedValidator,
} from '../import/schemas.js';
import {
  discoverSources,
  formatPosition,
  PathError,
  type RecordPosition,
  readSource,
  readSourceSteps,
  type SeedSource,
  SourceError,
  unchangedSince,
} from '../import/sources.js';

export interface SeedOptions {
  storage: Storage;
  config: Pick<Config, 'siteTimezone' | 'perPageMax'>;
  /** Seed files and directories. */
  paths: readonly string[];
  /** Validate and compare, write nothing. */
  dryRun?: boolean;
  /** Also remove the records the files do not hold (listed only, unless `yes`). */
  prune?: boolean;
  yes?: boolean;
  /** The run's clock (relative dates of new records count from it). */
  now?: Date;
  reporter?: SeedReporter;
  /** Writes in flight at once. */
  concurrency?: number;
  /** Streamed events handled per batch (one slug lookup per batch). */
  batchSize?: number;
  /** Event records kept from the validation pass for the write pass at most (more: files are read again). */
  keptEventsLimit?: number;
}

export interface RecordProblem {
  /** `invalid`: found by validation (nothing written); `failed`: a write the service refused. */
  kind: 'invalid' | 'failed';
  resource: Resource;
  /** `file[index]` (JSON) or `file:line` (JSON Lines, CSV). */
  location: string;
  file: string;
  index: number;
  line?: number;
  slug?: string;
  field: string;
  message: string;
}

export interface ResourceCounts {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  removed: number;
}

export interface PruneList {
  count: number;
  /** The first few slugs, for the report. */
  slugs: string[];
}

export type SeedPhase = 'validating' | 'loading' | 'pruning';

export interface SeedReporter {
  /** An invalid record (validation) or a failed write. */
  problem(problem: RecordProblem): void;
  info(message: string): void;
  /** Progress of a phase; `total` null when unknown (validation of streamed files). */
  progress(phase: SeedPhase, done: number, total: number | null): void;
}

export type SeedOutcome = 'ok' | 'invalid' | 'failed' | 'prune-unconfirmed';

export interface SeedReport {
  outcome: SeedOutcome;
  /** 0 ok, 1 invalid records or failed writes, 3 records to prune without `--yes` (nothing removed). */
  exitCode: 0 | 1 | 3;
  dryRun: boolean;
  /** Records found invalid (nothing was written then). */
  invalidRecords: number;
  /** The first problems (all of them went to the reporter). */
  problems: RecordProblem[];
  counts: Record<Resource, ResourceCounts>;
  /** What `--prune` removes (or would remove), per resource with files; null without `--prune`. */
  prune: Partial<Record<Resource, PruneList>> | null;
  pruneSkipped?: string;
  /** Valid records handled. */
  records: number;
  durationMs: number;
}

/** A fatal problem (unreadable file, storage error): the run stops; the message says why. */
export class SeedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SeedError';
  }
}

/** The paths to load name no seed file (seed-sources.ts PathError): a bad argument, before anything is read. */
export class SeedPathError extends SeedError {
  constructor(message: string) {
    super(message);
    this.name = 'SeedPathError';
  }
}

const CALLER: Caller = { role: 'editor', authorId: 0 };
const MAX_KEPT_PROBLEMS = 1000;
const PRUNE_SAMPLE = 20;
const LOOKUP_CHUNK = 1000;
/** Event records kept between the passes at most by default (about 1 KB each). */
const MAX_KEPT_EVENTS = 100_000;
const SMALL = ['categories', 'tags', 'venues', 'organizers'] as const;
type SmallResource = (typeof SMALL)[number];

const silentReporter: SeedReporter = { problem: () => undefined, info: () => undefined, progress: () => undefined };
const emptyCounts = (): ResourceCounts => ({ created: 0, updated: 0, unchanged: 0, failed: 0, removed: 0 });

/** A validated record of a small resource, kept in memory between the passes. */
interface Entry<R extends SmallResource> {
  position: RecordPosition;
  slug: string;
  record: SeedRecordTypes[R];
}

/** An event record as the validation pass read it. */
interface KeptEvent {
  position: RecordPosition;
  record: SeedEvent;
  /** Its start and end as the validation pass resolved them (counted from the run's clock). */
  dates?: EventDates | undefined;
}

/** What the write pass needs of an event record. */
interface PreparedEvent {
  position: RecordPosition;
  slug: string;
  record: SeedEvent;
  dates?: EventDates | undefined;
}

/**
 * Slug → id of one collection: the records of the files (exact, once known), and storage lookups
 * (least recently used, bounded), fetched a batch at a time.
 */
class SlugIds {
  readonly defined = new Map<string, number>();
  private readonly looked: LruCache<string, number | null>;

  constructor(
    private readonly lookup: (slugs: string[]) => Promise<Array<{ _id: number; slug: string }>>,
    capacity: number,
  ) {
    this.looked = new LruCache(capacity);
  }

  /** The id of a slug: a number, null (not stored), or undefined (not looked up yet). */
  get(slug: string): number | null | undefined {
    return this.defined.get(slug) ?? this.looked.get(slug);
  }

  remember(slug: string, id: number): void {
    this.looked.set(slug, id);
  }

  /** Looks up in storage, in as few queries as possible, the slugs not known yet. */
  async prefetch(slugs: Iterable<string>): Promise<void> {
    const missing = [...new Set(slugs)].filter((s) => !this.defined.has(s) && !this.looked.has(s));
    for (let i = 0; i < missing.length; i += LOOKUP_CHUNK) {
      const chunk = missing.slice(i, i + LOOKUP_CHUNK);
      const found = new Map((await this.lookup(chunk)).map((d) => [d.slug, d._id]));
      for (const slug of chunk) this.looked.set(slug, found.get(slug) ?? null);
    }
  }
}

/** What stops a run at a record: its position and what went wrong (not a refusal of the record). */
const stopAt = (position: RecordPosition, error: unknown): SeedError =>
  new SeedError(`${formatPosition(position)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

export async function runSeed(options: SeedOptions): Promise<SeedReport> {
  return new SeedRun(options).run();
}

class SeedRun {
  private readonly storage: Storage;
  /** Waits until every write of this run is durable (see Storage.bulkLoad). */
  private readonly settle: () => Promise<void>;
  private readonly reporter: SeedReporter;
  private readonly dryRun: boolean;
  private readonly siteTimezone: string;
  /** The run's clock, whole seconds (stored publication dates are whole seconds too). */
  private readonly now: Date;
  private readonly checkContext: RecordCheckContext;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly started = performance.now();

  private readonly terms: Record<'categories' | 'tags', TermsService>;
  private readonly venues: VenuesService;
  private readonly organizers: OrganizersService;
  private readonly events: EventsService;

  private readonly counts = Object.fromEntries(RESOURCES.map((r) => [r, emptyCounts()])) as Record<Resource, ResourceCounts>;
  private readonly problems: RecordProblem[] = [];
  private invalidRecords = 0;
  private sources: SeedSource[] = [];
  private readonly entries: { [R in SmallResource]: Array<Entry<R>> } = { categories: [], tags: [], venues: [], organizers: [] };
  private readonly fileSlugs: Record<SmallResource, Map<string, RecordPosition>> = {
    categories: new Map(),
    tags: new Map(),
    venues: new Map(),
    organizers: new Map(),
  };
  private readonly eventSlugs = new SlugFingerprints();
  /** Stored records (not in the files) that file records reference: `--prune` keeps them. */
  private readonly referencedStored: Record<SmallResource, Set<string>> = { categories: new Set(), tags: new Set(), venues: new Set(), organizers: new Set() };
  private readonly referencedStoredEvents = new SlugFingerprints();
  /** Events of the files that a later event of the files names as its series parent. */
  private readonly parentsInFiles = new SlugFingerprints();
  private readonly ids: Record<Resource, SlugIds>;
  /** Valid event records per file, kept from the validation pass (null: too many, read again). */
  private readonly keptEvents = new Map<SeedSource, KeptEvent[] | null>();
  private keptCount = 0;
  private eventRecords = 0;
  private done = 0;
  private total = 0;

  constructor(private readonly options: SeedOptions) {
    // The run is acknowledged by its report, so its writes need not each wait to be durable: all
    // are before the report is made (run()).
    const bulk = options.dryRun ? undefined : options.storage.bulkLoad?.();
    this.storage = bulk?.storage ?? options.storage;
    this.settle = bulk ? () => bulk.settle() : () => Promise.resolve();
    this.reporter = options.reporter ?? silentReporter;
    this.dryRun = options.dryRun ?? false;
    this.siteTimezone = options.config.siteTimezone;
    this.now = new Date(Math.floor((options.now ?? new Date()).getTime() / 1000) * 1000);
    this.checkContext = { siteTimezone: this.siteTimezone, now: this.now };
    this.concurrency = Math.max(1, options.concurrency ?? 64);
    this.batchSize = Math.max(1, options.batchSize ?? 1000);
    const services = createServices({ storage: this.storage, config: options.config });
    this.terms = { categories: services.categories, tags: services.tags };
    this.venues = services.venues;
    this.organizers = services.organizers;
    this.events = services.events;
    const bySlug = (resource: Resource) => (slugs: string[]) =>
      (this.storage[resource] as { find(q: { filter: Filter }): Promise<Array<{ _id: number; slug: string }>> }).find({ filter: { slug: { $in: slugs } } });
    this.ids = Object.fromEntries(RESOURCES.map((r) => [r, new SlugIds(bySlug(r), r === 'events' ? 100_000 : 50_000)])) as Record<Resource, SlugIds>;
  }

  async run(): Promise<SeedReport> {
    try {
      this.sources = await discoverSources(this.options.paths);
    } catch (error) {
      if (error instanceof PathError) throw new SeedPathError(error.message);
      if (error instanceof SourceError) throw new SeedError(error.message);
      throw error;
    }
    await this.validate();
    if (this.invalidRecords > 0) return this.report('invalid', null);
    this.total = SMALL.reduce((n, r) => n + this.entries[r].length, 0) + this.eventRecords;
    await this.written(this.apply());
    const failed = RESOURCES.some((r) => this.counts[r].failed > 0);
    if (!this.options.prune) return this.report(failed ? 'failed' : 'ok', null);
    if (failed) return this.report('failed', null, 'some records failed, so nothing was pruned');
    const prune = await this.written(this.prune());
    const pending = Object.values(prune).some((p) => p.count > 0);
    return this.report(pending && !this.options.yes ? 'prune-unconfirmed' : 'ok', prune);
  }

  /**
   * `work`'s result once every write made so far is durable. When the work fails, what it wrote
   * still goes to disk (the storage's close waits for it), but nothing is reported as done.
   */
  private async written<T>(work: Promise<T>): Promise<T> {
    const result = await work;
    try {
      await this.settle();
    } catch (error) {
      throw new SeedError(`the storage could not make the writes durable: ${error instanceof Error ? error.message : String(error)}`);
    }
    return result;
  }

  private report(outcome: SeedOutcome, prune: Partial<Record<Resource, PruneList>> | null, pruneSkipped?: string): SeedReport {
    return {
      outcome,
      exitCode: outcome === 'ok' ? 0 : outcome === 'prune-unconfirmed' ? 3 : 1,
      dryRun: this.dryRun,
      invalidRecords: this.invalidRecords,
      problems: this.problems,
      counts: this.counts,
      prune,
      ...(pruneSkipped ? { pruneSkipped } : {}),
      records: this.total,
      durationMs: Math.round(performance.now() - this.started),
    };
  }

  private sourcesOf(resource: Resource): SeedSource[] {
    return this.sources.filter((s) => s.resource === resource);
  }

  private problem(kind: RecordProblem['kind'], resource: Resource, position: RecordPosition, errors: readonly FieldError[], slug?: string): void {
    for (const { field, message } of errors) {
      const problem: RecordProblem = {
        kind,
        resource,
        location: formatPosition(position),
        file: position.source.display,
        index: position.index,
        ...(position.line !== undefined ? { line: position.line } : {}),
        ...(slug !== undefined ? { slug } : {}),
        field,
        message,
      };
      if (this.problems.length < MAX_KEPT_PROBLEMS) this.problems.push(problem);
      this.reporter.problem(problem);
    }
  }

  private readonly counted = new WeakSet<RecordPosition>();

  private invalid(resource: Resource, position: RecordPosition, errors: readonly FieldError[], slug?: string): void {
    if (!this.counted.has(position)) this.invalidRecords++;
    this.counted.add(position);
    this.problem('invalid', resource, position, errors, slug);
  }

  private tick(phase: SeedPhase, total: number | null): void {
    this.done++;
    // Every record would be a lot of calls for a large load; the reporter throttles drawing anyway.
    if ((this.done & 63) === 0 || this.done === total) this.reporter.progress(phase, this.done, total);
  }

  // ---------------------------------------------------------------------------------------------
  // Pass 1: validation (nothing is written)
  // ---------------------------------------------------------------------------------------------

  private async validate(): Promise<void> {
    this.done = 0;
    for (const resource of SMALL) await this.validateSmall(resource);
    await this.checkSmallReferences();
    for (const source of this.sourcesOf('events')) await this.validateEvents(source);
  }

  private async validateSmall<R extends SmallResource>(resource: R): Promise<void> {
    const validator = seedValidator(resource);
    const slugs = this.fileSlugs[resource];
    for (const source of this.sourcesOf(resource)) {
      try {
        for await (const item of readSource(source)) {
          this.tick('validating', null);
          if ('errors' in item) {
            this.invalid(resource, item, item.errors);
            continue;
          }
          const errors = validator(item.record);
          if (errors.length > 0) {
            this.invalid(resource, item, errors, slugToReport(resource, item.record));
            continue;
          }
          const record = item.record as SeedRecordTypes[R];
          const name = 'name' in record ? record.name : 'venue' in record ? record.venue : (record as SeedOrganizer).organizer;
          const slug = recordIdentity(record, name, errors);
          const first = slugs.get(slug);
          if (first !== undefined) errors.push({ field: 'slug', message: `slug "${slug}" is already used by ${formatPosition(first)}.` });
          if (resource === 'venues' || resource === 'organizers') publicationDateErrors(record as SeedVenue, this.siteTimezone, this.now, errors);
          if (errors.length > 0) {
            this.invalid(resource, item, errors, slug);
            continue;
          }
          slugs.set(slug, item);
          (this.entries[resource] as Array<Entry<R>>).push({ position: item, slug, record });
        }
      } catch (error) {
        if (error instanceof SourceError) throw new SeedError(error.message);
        throw error;
      }
    }
  }

  /** Category parents, term names, and the services' checks of venues and organizers. */
  private async checkSmallReferences(): Promise<void> {
    await this.checkCategories();
    await this.checkTermNames('tags');
    for (const resource of ['venues', 'organizers'] as const) {
      const service = resource === 'venues' ? this.venues : this.organizers;
      const stored = await this.storedBySlug(resource, this.entries[resource].map((e) => e.slug));
      for (const entry of this.entries[resource]) {
        const { slug: _slug, ...body } = entry.record;
        const errors = new ParamErrors();
        service.prepare(body as never, (stored.get(entry.slug) ?? null) as never, errors);
        if (!errors.empty) this.invalid(resource, entry.position, fieldErrors(new InvalidParamsError(errors.params)), entry.slug);
      }
    }
  }

  private async storedBySlug<R extends Resource>(resource: R, slugs: string[]): Promise<Map<string, Awaited<ReturnType<Storage[R]['find']>>[number]>> {
    const found = new Map<string, Awaited<ReturnType<Storage[R]['find']>>[number]>();
    for (let i = 0; i < slugs.length; i += LOOKUP_CHUNK) {
      const docs = await (this.storage[resource] as Storage['events']).find({ filter: { slug: { $in: slugs.slice(i, i + LOOKUP_CHUNK) } } });
      for (const doc of docs) found.set(doc.slug, doc as never);
    }
    return found;
  }

  private async checkCategories(): Promise<void> {
    const entries = this.entries.categories;
    const inFiles = this.fileSlugs.categories;
    const parents = entries.map((e) => e.record.parent).filter((p): p is string => p !== undefined && p !== '' && !inFiles.has(p));
    await this.ids.categories.prefetch(parents);
    for (const entry of entries) {
      const parent = entry.record.parent;
      if (parent === undefined || parent === '' || inFiles.has(parent)) continue;
      if (typeof this.ids.categories.get(parent) === 'number') this.referencedStored.categories.add(parent);
      else this.invalid('categories', entry.position, [{ field: 'parent', message: `parent "${parent}" is neither in the seed files nor stored.` }], entry.slug);
    }
    // A category cannot be its own ancestor.
    const parentOf = new Map(entries.map((e) => [e.slug, e.record.parent]));
    for (const entry of entries) {
      const seen = new Set([entry.slug]);
      for (let p = parentOf.get(entry.slug); p !== undefined && p !== ''; p = parentOf.get(p)) {
        if (seen.has(p)) {
          this.invalid('categories', entry.position, [{ field: 'parent', message: `parent "${entry.record.parent}" makes a cycle (${[...seen].join(' → ')} → ${p}).` }], entry.slug);
          break;
        }
        seen.add(p);
      }
    }
    await this.checkTermNames('categories');
  }

  /**
   * Term names are unique (per parent for categories): two file records, or a file record and a
   * stored term the files do not hold, may not share one — the write would be refused (`term_exists`).
   */
  private async checkTermNames(taxonomy: 'categories' | 'tags'): Promise<void> {
    const entries = this.entries[taxonomy] as Array<Entry<'categories'> | Entry<'tags'>>;
    if (entries.length === 0) return;
    const parentKey = (e: Entry<'categories'> | Entry<'tags'>) => (taxonomy === 'categories' ? ((e.record as SeedCategory).parent ?? '') : '');
    const byName = new Map<string, Entry<'categories'> | Entry<'tags'>>();
    for (const entry of entries) {
      const key = `${parentKey(entry)}\u0000${entry.record.name.trim().toLowerCase()}`;
      const first = byName.get(key);
      if (first) {
        this.invalid(taxonomy, entry.position, [{ field: 'name', message: `name "${entry.record.name}" is already used by ${formatPosition(first.position)}${taxonomy === 'categories' ? ' under the same parent' : ''}.` }], entry.slug);
      } else byName.set(key, entry);
    }
    const stored: TermDoc[] = [];
    const keys = [...new Set(entries.map((e) => e.record.name.trim().toLowerCase()))];
    for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
      stored.push(...(await this.storage[taxonomy].find({ filter: { nameKey: { $in: keys.slice(i, i + LOOKUP_CHUNK) } } })));
    }
    const inFiles = this.fileSlugs[taxonomy];
    const storedParentSlug = new Map<number, string>();
    if (taxonomy === 'categories') {
      const parentIds = [...new Set(stored.map((t) => t.parent).filter((p) => p !== 0))];
      if (parentIds.length > 0) for (const t of await this.storage.categories.find({ filter: { _id: { $in: parentIds } } })) storedParentSlug.set(t._id, t.slug);
    }
    for (const term of stored) {
      if (inFiles.has(term.slug)) continue;
      const parent = term.parent === 0 ? '' : storedParentSlug.get(term.parent);
      const clash = byName.get(`${parent}\u0000${term.nameKey}`);
      if (clash && clash.slug !== term.slug) {
        this.invalid(taxonomy, clash.position, [{ field: 'name', message: `name "${clash.record.name}" is already used by the stored ${taxonomy === 'tags' ? 'tag' : 'category'} "${term.slug}"${taxonomy === 'categories' ? ' under the same parent' : ''}.` }], clash.slug);
      }
    }
  }

  private async validateEvents(source: SeedSource): Promise<void> {
    type Pending = { position: RecordPosition; record: SeedEvent; slug: string; parentSeen: boolean };
    let batch: Pending[] = [];
    const check = async (): Promise<void> => {
      const refs = { venues: new Set<string>(), organizers: new Set<string>(), categories: new Set<string>(), tags: new Set<string>() };
      const parents = new Set<string>();
      // Only a record naming something outside the files needs storage (and a second look): the
      // others are counted at once.
      const outside: Pending[] = [];
      let named = false;
      // Visitors made once a batch, not once a record.
      const collect = (resource: SmallResource, s: string): void => {
        if (this.fileSlugs[resource].has(s)) return;
        refs[resource].add(s);
        named = true;
      };
      let errors: FieldError[] = [];
      const resolve = (resource: SmallResource, s: string): void => {
        if (this.fileSlugs[resource].has(s)) return;
        if (typeof this.ids[resource].get(s) === 'number') this.referencedStored[resource].add(s);
        else errors.push({ field: fieldOf[resource], message: `${fieldOf[resource]} names "${s}", which is neither in the seed files nor stored.` });
      };
      for (const pending of batch) {
        named = false;
        this.eachRef(pending.record, collect);
        if (pending.record.post_parent && !pending.parentSeen) {
          parents.add(pending.record.post_parent);
          named = true;
        }
        if (named) outside.push(pending);
        else this.eventRecords++;
      }
      batch = [];
      if (outside.length === 0) return;
      await Promise.all([...SMALL.map((r) => this.ids[r].prefetch(refs[r])), this.ids.events.prefetch(parents)]);
      for (const { position, record, slug, parentSeen } of outside) {
        if (errors.length > 0) errors = [];
        this.eachRef(record, resolve);
        if (record.post_parent && !parentSeen) {
          if (typeof this.ids.events.get(record.post_parent) === 'number') this.referencedStoredEvents.add(record.post_parent);
          else errors.push({ field: 'post_parent', message: `post_parent names "${record.post_parent}", which is neither stored nor an event before this one in the files.` });
        }
        if (errors.length > 0) this.invalid('events', position, errors, slug);
        else this.eventRecords++;
      }
    };
    try {
      for await (const step of readSourceSteps(source)) {
        for (const item of step) {
          this.tick('validating', null);
          if ('errors' in item) {
            this.invalid('events', item, item.errors);
            continue;
          }
          const errors: FieldError[] = [];
          const checked = checkSeedEvent(item.record, this.checkContext, errors);
          if (checked && !this.eventSlugs.add(checked.slug)) errors.push({ field: 'slug', message: `slug "${checked.slug}" is used by an earlier event record.` });
          if (checked === null || errors.length > 0) {
            this.invalid('events', item, errors, checked?.slug ?? slugToReport('events', item.record));
            continue;
          }
          this.keep(source, { position: item, record: checked.record, dates: checked.dates });
          const parent = checked.record.post_parent;
          const parentSeen = parent !== undefined && parent !== '' && this.eventSlugs.has(parent);
          if (parentSeen) this.parentsInFiles.add(parent);
          batch.push({ position: item, record: checked.record, slug: checked.slug, parentSeen });
          if (batch.length >= this.batchSize) await check();
        }
      }
      await check();
    } catch (error) {
      if (error instanceof SourceError) throw new SeedError(error.message);
      throw error;
    }
  }

  /**
   * Keeps a valid event record for the write pass, which then need not read and parse the file again,
   * up to `keptEventsLimit` per run; a file past that is read again (memory stays bounded).
   */
  private keep(source: SeedSource, event: KeptEvent): void {
    let kept = this.keptEvents.get(source);
    if (kept === undefined) this.keptEvents.set(source, (kept = []));
    if (kept === null) return;
    if (this.keptCount >= (this.options.keptEventsLimit ?? MAX_KEPT_EVENTS)) {
      this.keptCount -= kept.length;
      this.keptEvents.set(source, null);
      return;
    }
    kept.push(event);
    this.keptCount += 1;
  }

  /** Calls `visit` with each slug an event record names and its resource (an empty venue left out). */
  private eachRef(record: SeedEvent, visit: (resource: SmallResource, slug: string) => void): void {
    if (record.venue) visit('venues', record.venue);
    if (record.organizer) for (const s of record.organizer) visit('organizers', s);
    if (record.categories) for (const s of record.categories) visit('categories', s);
    if (record.tags) for (const s of record.tags) visit('tags', s);
  }

  // ---------------------------------------------------------------------------------------------
  // Pass 2: writes, in dependency order
  // ---------------------------------------------------------------------------------------------

  private async apply(): Promise<void> {
    this.done = 0;
    await this.applyCategories();
    await this.applyTags();
    await this.applyLinkedPosts('venues', this.venues);
    await this.applyLinkedPosts('organizers', this.organizers);
    for (const source of this.sourcesOf('events')) await this.applyEvents(source);
  }

  /** A placeholder id for a record a dry run would create (never a real id). */
  private placeholder = -1;

  /** Runs one record's write; a refused write (4xx) fails the record, anything else stops the run. */
  private async attempt(resource: Resource, position: RecordPosition, slug: string, write: () => Promise<'created' | 'updated' | 'unchanged'>): Promise<void> {
    try {
      this.counts[resource][await write()]++;
    } catch (error) {
      if (!isClientError(error)) throw stopAt(position, error);
      this.failed(resource, position, error, slug);
    } finally {
      this.tick('loading', this.total);
    }
  }

  /** A record whose write the services refused: counted and reported; the run goes on. */
  private failed(resource: Resource, position: RecordPosition, error: ApiError, slug: string): void {
    this.counts[resource].failed++;
    this.problem('failed', resource, position, fieldErrors(error), slug);
  }

  /** Categories one by one, parents first. */
  private async applyCategories(): Promise<void> {
    const entries = this.entries.categories;
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
    const stored = await this.storedBySlug('categories', entries.map((e) => e.slug));
    for (const entry of ordered) {
      const { name, description, parent } = entry.record;
      const parentId = parent === undefined ? undefined : parent === '' ? 0 : (this.ids.categories.get(parent) as number);
      await this.attempt('categories', entry.position, entry.slug, () => this.upsertTerm('categories', entry.slug, stored.get(entry.slug), { name, description, parentId }));
    }
  }

  private async applyTags(): Promise<void> {
    const stored = await this.storedBySlug('tags', this.entries.tags.map((e) => e.slug));
    await forEachLimit(this.entries.tags, this.concurrency, (entry) =>
      this.attempt('tags', entry.position, entry.slug, () =>
        this.upsertTerm('tags', entry.slug, stored.get(entry.slug), { name: entry.record.name, description: entry.record.description, parentId: undefined }),
      ),
    );
  }

  private async upsertTerm(
    taxonomy: 'categories' | 'tags',
    slug: string,
    current: TermDoc | undefined,
    { name, description, parentId }: { name: string; description: string | undefined; parentId: number | undefined },
  ): Promise<'created' | 'updated' | 'unchanged'> {
    const service = this.terms[taxonomy];
    if (current) {
      this.ids[taxonomy].defined.set(slug, current._id);
      const patch: { name?: string; description?: string; parent?: number } = {};
      if (name.trim() !== current.name) patch.name = name;
      if (description !== undefined && description !== current.description) patch.description = description;
      if (parentId !== undefined && parentId !== current.parent) patch.parent = parentId;
      if (Object.keys(patch).length === 0) return 'unchanged';
      if (!this.dryRun) await service.update(current._id, patch);
      return 'updated';
    }
    if (this.dryRun) {
      this.ids[taxonomy].defined.set(slug, this.placeholder--);
      return 'created';
    }
    const { doc } = await service.create({
      name,
      slug,
      ...(description !== undefined ? { description } : {}),
      ...(parentId !== undefined ? { parent: parentId } : {}),
    });
    this.ids[taxonomy].defined.set(slug, doc._id);
    return 'created';
  }

  private async applyLinkedPosts(resource: 'venues' | 'organizers', service: VenuesService | OrganizersService): Promise<void> {
    const entries = this.entries[resource] as Array<Entry<'venues'> | Entry<'organizers'>>;
    const stored = await this.storedBySlug(resource, entries.map((e) => e.slug));
    await forEachLimit(entries, this.concurrency, (entry) =>
      this.attempt(resource, entry.position, entry.slug, async () => {
        const { slug, ...fields } = entry.record;
        const body = fields as SeedVenue & SeedOrganizer;
        const current = stored.get(entry.slug);
        if (current) {
          this.ids[resource].defined.set(entry.slug, current._id);
          if (current.status === 'trash' && body.status === undefined) body.status = 'publish';
          if (Object.keys(service.changes(current as never, body as never)).length === 0) return 'unchanged';
          if (!this.dryRun) await service.update({ id: current._id }, body as never);
          return 'updated';
        }
        if (this.dryRun) {
          this.ids[resource].defined.set(entry.slug, this.placeholder--);
          return 'created';
        }
        const doc = await service.createWithSlug(body as never, CALLER, slug ?? entry.slug);
        this.ids[resource].defined.set(entry.slug, doc._id);
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
  private async applyEvents(source: SeedSource): Promise<void> {
    let batch: Array<PreparedEvent & { layer: number }> = [];
    /** Layer of each event of the batch, by slug. */
    let layers = new Map<string, number>();
    let deepest = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const slugs = batch.map((p) => p.slug);
      const existing = new Map<string, EventDoc>();
      for (const doc of await this.storage.events.find({ filter: { slug: { $in: slugs } } })) existing.set(doc.slug, doc);
      const refs = { venues: new Set<string>(), organizers: new Set<string>(), categories: new Set<string>(), tags: new Set<string>() };
      const parents = new Set<string>();
      const collect = (resource: SmallResource, s: string): void => void refs[resource].add(s);
      for (const { record } of batch) {
        this.eachRef(record, collect);
        // A parent of this batch gets its id when its layer is written, not from storage.
        if (record.post_parent && !layers.has(record.post_parent)) parents.add(record.post_parent);
      }
      await Promise.all([...SMALL.map((r) => this.ids[r].prefetch(refs[r])), this.ids.events.prefetch(parents)]);
      const byLayer: PreparedEvent[][] = Array.from({ length: deepest + 1 }, () => []);
      for (const prepared of batch) byLayer[prepared.layer]!.push(prepared);
      for (const layer of byLayer) {
        // New events are created together (one insertMany); stored ones are compared one by one.
        const creates = this.dryRun ? [] : layer.filter((prepared) => !existing.has(prepared.slug));
        const others = creates.length === 0 ? layer : layer.filter((prepared) => existing.has(prepared.slug));
        await forEachLimit(others, this.concurrency, (prepared) =>
          this.attempt('events', prepared.position, prepared.slug, () => this.upsertEvent(prepared, existing.get(prepared.slug) ?? null)),
        );
        await this.createEvents(creates);
      }
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
      return batch.length >= this.batchSize;
    };
    const kept = this.keptEvents.get(source);
    // Kept records are walked synchronously, read ones a chunk at a time: a `for await` step per record
    // costs a microtask turn and promises each.
    if (kept) {
      for (const event of kept) if (add(event)) await flush();
    } else {
      for await (const step of this.rereadEvents(source)) for (const event of step) if (add(event)) await flush();
    }
    await flush();
  }

  /** Creates events none of which is stored yet, with one bulk write; a refused record fails alone. */
  private async createEvents(batch: readonly PreparedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const bodies = batch.map(({ position, record, slug, dates }) => {
      try {
        return this.eventBody(record, slug, null, dates).body;
      } catch (error) {
        throw stopAt(position, error);
      }
    });
    let results: Array<EventDoc | ApiError>;
    try {
      results = await this.events.createDocs(bodies, CALLER);
    } catch (error) {
      throw stopAt(batch[0]!.position, error);
    }
    results.forEach((result, k) => {
      const { position, slug } = batch[k]!;
      if (result instanceof ApiError) this.failed('events', position, result, slug);
      else {
        this.counts.events.created++;
        // Kept for the occurrences that name it (the next layer of this batch needs it at once); any
        // other id is looked up if ever needed, rather than crowding the cache during a large load.
        if (this.parentsInFiles.has(slug)) this.ids.events.remember(slug, result._id);
      }
      this.tick('loading', this.total);
    });
  }

  /** The event records of a file too large to keep between the passes, read again (a chunk's worth at a time). */
  private async *rereadEvents(source: SeedSource): AsyncGenerator<KeptEvent[]> {
    if (!(await unchangedSince(source))) throw new SeedError(`${source.display} changed while it was being loaded; run again.`);
    for await (const step of readSourceSteps(source)) {
      yield step.map((item) => {
        // Validated in pass 1 (and the file's size and time are unchanged): a record unreadable now
        // means the file changed in between.
        if ('errors' in item || typeof item.record !== 'object' || item.record === null) throw new SeedError(`${formatPosition(item)} changed while the file was being loaded; run again.`);
        return { position: item, record: item.record as SeedEvent };
      });
    }
  }

  /**
   * The API body of an event record: slugs become ids, dates become instants (see the header).
   *
   * Written as one literal naming every field (undefined where the record has none, which the
   * services read as absent), not copied key by key from the record: bodies copied that way had a
   * hidden class per combination of optional fields, and every read of a body field by the events
   * service went through V8's megamorphic property cache. A test loads a record with every field of
   * the seed schema and checks each one arrives, so a field added to the schema is not dropped here.
   */
  private eventBody(record: SeedEvent, slug: string, current: EventDoc | null, resolved?: EventDates): { body: EventCreate; placeholders: boolean } {
    const { venue, organizer, categories, tags, post_parent: parent, start_date, end_date, date, date_utc } = record;
    const timezone = record.timezone !== undefined ? record.timezone.trim() || this.siteTimezone : (current?.timezone ?? this.siteTimezone);
    const published = date_utc !== undefined ? resolveSeedDate(date_utc, 'UTC', this.now) : date !== undefined ? resolveSeedDate(date, timezone, this.now) : null;
    const anchor = published ?? current?.dateUtc ?? this.now;
    // The validation pass read the dates in the same zone from the same clock: a new event without a
    // publication date (which would anchor relative dates) takes them as they are.
    const reuse = resolved !== undefined && current === null && published === null;
    const body: EventCreate = {
      title: record.title,
      description: record.description,
      excerpt: record.excerpt,
      slug,
      author: record.author,
      status: current?.status === 'trash' && record.status === undefined ? 'publish' : record.status,
      timezone: record.timezone,
      all_day: record.all_day,
      start_date: reuse ? resolved[0] : this.instant(start_date, timezone, anchor, slug),
      end_date: reuse ? resolved[1] : this.instant(end_date, timezone, anchor, slug),
      date_utc: published !== null ? toTimestamp(published) : current === null ? toTimestamp(this.now) : undefined,
      image: record.image,
      cost: record.cost,
      website: record.website,
      show_map: record.show_map,
      show_map_link: record.show_map_link,
      hide_from_listings: record.hide_from_listings,
      sticky: record.sticky,
      featured: record.featured,
      ticketed: record.ticketed,
      venue: venue === undefined ? undefined : venue === '' ? 0 : this.idOf('venues', venue, slug),
      organizer: organizer === undefined ? undefined : this.idsOf('organizers', organizer, slug),
      categories: categories === undefined ? undefined : this.idsOf('categories', categories, slug),
      tags: tags === undefined ? undefined : this.idsOf('tags', tags, slug),
      post_parent: parent === undefined ? undefined : parent === '' ? 0 : this.idOf('events', parent, slug),
    };
    // Negative ids are a dry run's placeholders for records it would create.
    const placeholders =
      this.dryRun &&
      ((typeof body.venue === 'number' && body.venue < 0) ||
      (typeof body.post_parent === 'number' && body.post_parent < 0) ||
      [body.organizer, body.categories, body.tags].some((ids) => Array.isArray(ids) && ids.some((id) => (id as number) < 0)));
    return { body, placeholders };
  }

  // eventBody's helpers are methods rather than closures made for every record (see services/events.ts).

  private instant(raw: string | number, timezone: string, anchor: Date, slug: string): number {
    const resolved = resolveSeedDate(raw, timezone, anchor);
    if (resolved === null) throw new SeedError(`a date of "${slug}" could not be read again`);
    return toTimestamp(resolved);
  }

  /** The id of a record a file record names (known since validation or its write). */
  private idOf(resource: Resource, s: string, slug: string): number {
    const found = this.ids[resource].get(s);
    if (typeof found !== 'number') throw new SeedError(`${resource} "${s}" named by "${slug}" cannot be found any more`);
    return found;
  }

  private idsOf(resource: Resource, slugs: readonly string[], slug: string): number[] {
    const ids = new Array<number>(slugs.length);
    for (let i = 0; i < slugs.length; i++) ids[i] = this.idOf(resource, slugs[i]!, slug);
    return ids;
  }

  /** A stored event compared and updated, or (dry run) one that would be created; real creates go through `createEvents`. */
  private async upsertEvent({ record, slug }: PreparedEvent, current: EventDoc | null): Promise<'created' | 'updated' | 'unchanged'> {
    const { body, placeholders } = this.eventBody(record, slug, current);
    if (current) {
      if (this.parentsInFiles.has(slug)) this.ids.events.remember(slug, current._id);
      // A dry run cannot compare links to records it would only create: those change for sure.
      if (placeholders) return 'updated';
      if (Object.keys(await this.events.changes(current, body, CALLER)).length === 0) return 'unchanged';
      if (!this.dryRun) await this.events.updateDoc(current, body, CALLER);
      return 'updated';
    }
    if (!this.dryRun) throw new Error(`event "${slug}" is new: it is created with its batch, not here`);
    this.ids.events.remember(slug, this.placeholder--);
    return 'created';
  }

  // ---------------------------------------------------------------------------------------------
  // --prune
  // ---------------------------------------------------------------------------------------------

  private async prune(): Promise<Partial<Record<Resource, PruneList>>> {
    const remove = this.options.yes === true && !this.dryRun;
    const result: Partial<Record<Resource, PruneList>> = {};
    this.done = 0;
    // Events first, so venues, organizers and terms are unlinked from live events only when needed.
    for (const resource of ['events', 'organizers', 'venues', 'tags', 'categories'] as const) {
      if (this.sourcesOf(resource).length === 0) continue;
      const list: PruneList = { count: 0, slugs: [] };
      result[resource] = list;
      const keep = resource === 'events' ? (slug: string) => this.eventSlugs.has(slug) || this.referencedStoredEvents.has(slug) : (slug: string) => this.fileSlugs[resource].has(slug) || this.referencedStored[resource].has(slug);
      const candidates: Array<{ _id: number; slug: string; parent?: number }> = [];
      await this.eachStored(resource, async (doc) => {
        if (keep(doc.slug)) return;
        list.count++;
        if (list.slugs.length < PRUNE_SAMPLE) list.slugs.push(doc.slug);
        if (!remove) return;
        // Terms are removed once all are known (children first); posts at once.
        if (resource === 'categories' || resource === 'tags') candidates.push(doc as TermDoc);
        else await this.removePost(resource, doc as never);
      });
      if (remove && candidates.length > 0) await this.removeTerms(resource as 'categories' | 'tags', candidates as TermDoc[]);
    }
    return result;
  }

  /** Every stored record of a resource that is not in the trash, a page at a time by id. */
  private async eachStored(resource: Resource, visit: (doc: { _id: number; slug: string; status?: string }) => Promise<void>): Promise<void> {
    const collection = this.storage[resource] as Storage['events'];
    const posts = resource === 'events' || resource === 'venues' || resource === 'organizers';
    let last = 0;
    for (;;) {
      const filter: Filter = posts ? { $and: [{ _id: { $gt: last } }, { status: { $ne: 'trash' } }] } : { _id: { $gt: last } };
      const page = await collection.find({ filter, sort: [['_id', 1]], limit: LOOKUP_CHUNK });
      for (const doc of page) await visit(doc);
      if (page.length < LOOKUP_CHUNK) return;
      last = (page[page.length - 1] as { _id: number })._id;
    }
  }

  private async removePost(resource: 'events' | 'venues' | 'organizers', doc: EventDoc & { _id: number }): Promise<void> {
    if (resource === 'events') await this.events.trashDoc(doc);
    else await (resource === 'venues' ? this.venues : this.organizers).trash({ id: doc._id });
    this.counts[resource].removed++;
    this.tick('pruning', null);
  }

  /** Deletes terms for good; categories deepest first, so no child moves up only to be deleted. */
  private async removeTerms(taxonomy: 'categories' | 'tags', terms: TermDoc[]): Promise<void> {
    const all = taxonomy === 'categories' ? new Map((await this.storage.categories.find({ filter: {} })).map((t) => [t._id, t])) : new Map<number, TermDoc>();
    const depth = (t: TermDoc): number => {
      let d = 0;
      for (let p = t.parent, guard = 0; p !== 0 && guard < 1000; p = all.get(p)?.parent ?? 0, guard++) d++;
      return d;
    };
    const ordered = [...terms].sort((a, b) => depth(b) - depth(a));
    for (const term of ordered) {
      try {
        await this.terms[taxonomy].remove(term._id);
        this.counts[taxonomy].removed++;
      } catch (error) {
        if (!isClientError(error)) throw error;
        this.counts[taxonomy].failed++;
        this.reporter.info(`${taxonomy} "${term.slug}" was not removed: ${error.message}`);
      }
      this.tick('pruning', null);
    }
  }
}

const fieldOf: Record<SmallResource, string> = { venues: 'venue', organizers: 'organizer', categories: 'categories', tags: 'tags' };
